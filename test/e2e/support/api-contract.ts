// Compile-time check (npm test type-checks it) that the wire types the web pages are written
// against (web/src/shared/api-types.ts) are exactly what the server's TypeBox schemas answer.
// A field renamed, retyped or added on either side fails the type-check here.
import type { Static } from 'typebox'
import type { CatalogueResponse, CatalogueService } from '../../../src/modules/catalogue/catalogue-edit.schemas.js'
import type { ItemResponse, ItemsResponse } from '../../../src/modules/catalogue/items.schemas.js'
import type { ServiceView, StatsResponse } from '../../../src/modules/catalogue/services.schemas.js'
import type { CustomerChanges, CustomerCreateView, CustomerView } from '../../../src/modules/customers/customers.schemas.js'
import type { ListCustomersResponse } from '../../../src/modules/customers/list.schemas.js'
import type { SearchResponse } from '../../../src/modules/customers/search.schemas.js'
import type { BoardResponse } from '../../../src/modules/orders/board.schemas.js'
import type {
  CreateTransactionResponse,
  HistoryResponse,
  ListResponse,
  TransactionView,
  UpdateTransactionResponse
} from '../../../src/modules/orders/orders.schemas.js'
import type { ConsoleConfig, SessionOwner, SessionView, StaffList, StaffView } from '../../../src/modules/staff/staff.schemas.js'
import type { TrackingLinkResponse, TrackingStatusResponse } from '../../../src/modules/tracking/tracking.schemas.js'
import type * as Web from '../../../web/src/shared/api-types.js'
import type * as WebStaff from '../../../web/src/shared/staff-types.js'

/** True when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Holds<T extends true> = T
/** True when a body the console sends is one the server's schema accepts. */
type Fits<A, B> = [A] extends [B] ? true : false

export type ApiContract = [
  Holds<Same<WebStaff.ConsoleConfig, Static<typeof ConsoleConfig>>>,
  Holds<Same<WebStaff.ConsoleSession, Static<typeof SessionView>>>,
  Holds<Same<Omit<WebStaff.ConsoleSession, 'csrf_token'>, Static<typeof SessionOwner>>>,
  Holds<Same<WebStaff.StaffView, Static<typeof StaffView>>>,
  Holds<Same<WebStaff.StaffListResponse, Static<typeof StaffList>>>,
  Holds<Fits<Web.CustomerChanges, CustomerChanges>>,
  Holds<Same<Web.CustomerListResponse, Static<typeof ListCustomersResponse>>>,
  Holds<Same<Web.ServiceView, Static<typeof ServiceView>>>,
  Holds<Same<Web.StatsResponse, Static<typeof StatsResponse>>>,
  Holds<Same<Web.TransactionView, Static<typeof TransactionView>>>,
  Holds<Same<Web.ListResponse, Static<typeof ListResponse>>>,
  Holds<Same<Web.HistoryResponse, Static<typeof HistoryResponse>>>,
  Holds<Same<Web.CreateTransactionResponse, Static<typeof CreateTransactionResponse>>>,
  Holds<Same<Web.UpdatedTransaction, Static<typeof UpdateTransactionResponse>>>,
  Holds<Same<Web.BoardResponse, Static<typeof BoardResponse>>>,
  Holds<Same<Web.CatalogueServicesResponse, Static<typeof CatalogueResponse>>>,
  Holds<Same<Web.CatalogueService, Static<typeof CatalogueService>>>,
  Holds<Same<Web.ItemsResponse, Static<typeof ItemsResponse>>>,
  Holds<Same<Web.ItemResponse, Static<typeof ItemResponse>>>,
  Holds<Same<Web.SearchResponse, Static<typeof SearchResponse>>>,
  Holds<Same<Web.CustomerRecord, Static<typeof CustomerView>>>,
  Holds<Same<Web.CustomerCreated, Static<typeof CustomerCreateView>>>,
  Holds<Same<Web.TrackingLink, Static<typeof TrackingLinkResponse>>>,
  Holds<Same<Web.TrackingStatus, Static<typeof TrackingStatusResponse>>>
]
