// Payments: the data key that seals card numbers and links (D-02), and the card rules (D-34).

export { checkCard, type SealedCard, sealCard } from './card.js'
export { loadCardKey } from './card-key.js'
export { checkDataKey, dataKeyFingerprint } from './data-key-check.js'
