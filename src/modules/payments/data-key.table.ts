/** `data_key`: one row (id 1), the fingerprint of the key data is sealed with (D-34). */
export interface DataKeyTable {
  id: number
  fingerprint: string
}
