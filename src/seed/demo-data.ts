import type { EventName } from '../modules/catalogue/index.js'
import type { SeedCustomer } from '../modules/customers/index.js'

/** One step of a demo service, as create service and add step take it (D-41). */
export interface DemoStep {
  description: string
  button_title: string
  events: EventName[]
}

/** A priced demo item (D-45): whole cents, listed in `group`. */
export interface DemoItem {
  group: string
  title: string
  price_cents: number
  image_url: string
}

/** A demo service: its steps in order (4 to 7) and its items in 2 or 3 groups (D-90). */
export interface DemoService {
  name: string
  steps: DemoStep[]
  items: DemoItem[]
}

/** A demo customer; the address is a real US ZIP code with its city and state (D-31). */
export type DemoCustomer = SeedCustomer

/** `Sheet set (queen)` → `sheet-set-queen.jpg`. */
function imageOf(title: string): string {
  return `${title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}.jpg`
}

/** Items of one group from `[title, cents]` pairs. */
function group(name: string, items: Array<[title: string, cents: number]>): DemoItem[] {
  return items.map(([title, price_cents]) => ({ group: name, title, price_cents, image_url: imageOf(title) }))
}

/** The demo catalogue `service-ordering seed --demo` creates (D-90). Prices are in cents. */
export const DEMO_SERVICES: readonly DemoService[] = [
  {
    name: 'Wash & Fold',
    steps: [
      {
        description: 'Order received: we will pick up your laundry at the time you chose',
        button_title: 'Confirm pickup',
        events: ['email']
      },
      { description: 'Picked up from your door', button_title: 'Start washing', events: ['text', 'trak'] },
      { description: 'Washing and drying', button_title: 'Start folding', events: ['trak'] },
      { description: 'Folded and packed', button_title: 'Send out for delivery', events: ['trak'] },
      { description: 'Out for delivery', button_title: 'Mark delivered', events: ['text'] },
      { description: 'Delivered. Thank you!', button_title: 'Close order', events: ['email', 'trak'] }
    ],
    items: [
      ...group('By the bag', [
        ['Small bag (up to 10 lb)', 1800],
        ['Medium bag (up to 20 lb)', 3200],
        ['Large bag (up to 30 lb)', 4500]
      ]),
      ...group('Bedding', [
        ['Comforter (queen)', 2800],
        ['Comforter (king)', 3400],
        ['Sheet set', 1200],
        ['Pillow', 900]
      ]),
      ...group('Add-ons', [
        ['Hypoallergenic detergent', 300],
        ['Fabric softener', 200],
        ['Same-day rush', 1500]
      ])
    ]
  },
  {
    name: 'Dry Cleaning',
    steps: [
      { description: 'Garments received and tagged', button_title: 'Inspect garments', events: ['email'] },
      { description: 'Inspected for stains and damage', button_title: 'Start cleaning', events: ['trak'] },
      { description: 'Dry cleaning in progress', button_title: 'Press garments', events: ['trak'] },
      { description: 'Pressed and bagged', button_title: 'Mark ready', events: ['trak'] },
      { description: 'Ready for pickup at the counter', button_title: 'Hand over', events: ['email', 'text'] }
    ],
    items: [
      ...group('Tops', [
        ['Shirt (laundered and pressed)', 399],
        ['Blouse', 699],
        ['Sweater', 899],
        ['Tie', 599]
      ]),
      ...group('Suits and dresses', [
        ['Two-piece suit', 1799],
        ['Trousers', 799],
        ['Dress', 1499],
        ['Evening gown', 3999]
      ]),
      ...group('Outerwear', [
        ['Coat', 2299],
        ['Down jacket', 2999]
      ])
    ]
  },
  {
    name: 'Home Cleaning',
    steps: [
      { description: 'Booking confirmed', button_title: 'Assign a cleaner', events: ['email', 'text'] },
      { description: 'Cleaner assigned and on the way', button_title: 'Start the visit', events: ['text'] },
      { description: 'Cleaning in progress', button_title: 'Finish the visit', events: ['trak'] },
      { description: 'Quality check', button_title: 'Complete', events: ['trak'] },
      { description: 'Completed: please rate your cleaner', button_title: 'Close booking', events: ['email'] }
    ],
    items: [
      ...group('Standard clean', [
        ['Studio apartment', 8900],
        ['One bedroom', 10900],
        ['Two bedrooms', 13900],
        ['Three bedrooms', 16900]
      ]),
      ...group('Deep clean extras', [
        ['Inside the oven', 3500],
        ['Inside the fridge', 3000],
        ['Interior windows', 4000],
        ['Baseboards', 2500]
      ]),
      ...group('Supplies', [['Eco-friendly products', 1000]])
    ]
  },
  {
    name: 'Shoe Repair',
    steps: [
      { description: 'Shoes dropped off', button_title: 'Assess the repair', events: ['email'] },
      { description: 'Being repaired', button_title: 'Polish', events: ['trak'] },
      { description: 'Polished and ready for pickup', button_title: 'Hand over', events: ['email', 'text', 'trak'] },
      { description: 'Collected', button_title: 'Close order', events: ['trak'] }
    ],
    items: [
      ...group('Repairs', [
        ['Heel replacement', 2500],
        ['Half sole', 4500],
        ['Full leather sole', 6500],
        ['Stitching repair', 1500]
      ]),
      ...group('Care', [
        ['Shine', 800],
        ['Suede cleaning', 1800],
        ['Waterproofing', 1200],
        ['Boot stretch', 2000]
      ])
    ]
  }
]

/** Demo customers; 555-01xx numbers are reserved for fiction. */
export const DEMO_CUSTOMERS: readonly DemoCustomer[] = [
  {
    first_name: 'Maria',
    last_name: 'Garcia',
    email: 'maria.garcia@example.com',
    phone: '2125550134',
    preference: 'Hypoallergenic detergent, no fabric softener',
    street: '350 W 31st St',
    apartment: 'Apt 4B',
    city: 'New York',
    state: 'NY',
    zip: '10001'
  },
  {
    first_name: 'James',
    last_name: 'Chen',
    email: 'james.chen@example.com',
    phone: '3125550178',
    preference: 'Shirts on hangers, light starch',
    street: '2130 N Lincoln Ave',
    apartment: '',
    city: 'Chicago',
    state: 'IL',
    zip: '60614'
  },
  {
    first_name: 'Priya',
    last_name: 'Patel',
    email: 'priya.patel@example.com',
    phone: '4155550122',
    preference: 'Ring the bell twice; the dog is friendly',
    street: '3200 24th St',
    apartment: 'Unit 2',
    city: 'San Francisco',
    state: 'CA',
    zip: '94110'
  },
  {
    first_name: 'Daniel',
    last_name: 'Okafor',
    email: 'daniel.okafor@example.com',
    phone: '6175550191',
    preference: '',
    street: '75 Ames St',
    apartment: '',
    city: 'Cambridge',
    state: 'MA',
    zip: '02139'
  },
  {
    first_name: 'Emily',
    last_name: 'Johnson',
    email: 'emily.johnson@example.com',
    phone: '5125550163',
    preference: 'Eco-friendly products only',
    street: '1100 Congress Ave',
    apartment: 'Apt 12',
    city: 'Austin',
    state: 'TX',
    zip: '78701'
  }
]
