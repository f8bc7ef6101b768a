import { type Kysely, sql } from 'kysely'

/**
 * The bank's identity of an account (`bank_account`), as its files state it: `BANKID/ACCTID`
 * from OFX and QFX (the ACCTID alone for a card), the IBAN from camt.053. Recorded when a file
 * is first imported into the account, or set by the user, so an import can tell a file of
 * another account from one of this account. Not unique: two replicas may record it at once,
 * and a household may keep a closed account and its successor.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts add column bank_account text
      check (bank_account is null or char_length(bank_account) between 1 and 100)`.execute(db)
  await sql`create index accounts_bank_account_idx on accounts (household_id, bank_account)
    where bank_account is not null`.execute(db)
}
