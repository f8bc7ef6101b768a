import type { MappingForm } from './csv-mapping-form.ts'

const COLUMN_FIELDS: [keyof MappingForm, string][] = [
  ['date', 'Date column'],
  ['amount', 'Amount column'],
  ['debit', 'Debit column'],
  ['credit', 'Credit column'],
  ['payee', 'Payee column'],
  ['memo', 'Memo column'],
  ['externalId', 'Bank id column'],
]

/**
 * The CSV mapping: every option the REST mapping takes. Columns are named by their header or by
 * a 0-based index; blank fields are told from the file. The account keeps it on commit.
 */
export function CsvMappingFields(props: { form: MappingForm; onChange: (form: MappingForm) => void }) {
  const { form, onChange } = props
  const set = (patch: Partial<MappingForm>) => onChange({ ...form, ...patch })
  return (
    <fieldset class="csv-mapping">
      <legend>CSV columns (blank: told from the file's header)</legend>
      {COLUMN_FIELDS.map(([key, label]) => (
        <label key={key}>
          {label}{' '}
          <input
            type="text"
            value={form[key] as string}
            onInput={(e) => set({ [key]: e.currentTarget.value } as Partial<MappingForm>)}
          />
        </label>
      ))}
      <label>
        Date format{' '}
        <input
          type="text"
          placeholder="DD.MM.YY"
          value={form.dateFormat}
          onInput={(e) => set({ dateFormat: e.currentTarget.value })}
        />
      </label>
      <label>
        Header line{' '}
        <input
          type="number"
          min={1}
          value={form.headerLine}
          disabled={form.noHeader}
          onInput={(e) => set({ headerLine: e.currentTarget.value })}
        />
      </label>
      <label>
        <input
          type="checkbox"
          checked={form.noHeader}
          onChange={(e) => set({ noHeader: e.currentTarget.checked, headerLine: '' })}
        />{' '}
        No header line (columns by number)
      </label>
      <label>
        Decimal separator{' '}
        <select
          aria-label="Decimal separator"
          value={form.decimal}
          onChange={(e) => set({ decimal: e.currentTarget.value as MappingForm['decimal'] })}
        >
          <option value="">Told from the file</option>
          <option value=".">Point (1,234.56)</option>
          <option value=",">Comma (1.234,56)</option>
        </select>
      </label>
      <label>
        Delimiter{' '}
        <select
          aria-label="Delimiter"
          value={form.delimiter}
          onChange={(e) => set({ delimiter: e.currentTarget.value as MappingForm['delimiter'] })}
        >
          <option value="">Told from the file</option>
          <option value=",">Comma</option>
          <option value=";">Semicolon</option>
          <option value={'\t'}>Tab</option>
        </select>
      </label>
      <label>
        <input
          type="checkbox"
          checked={form.invert}
          onChange={(e) => set({ invert: e.currentTarget.checked })}
        />{' '}
        Turn every amount's sign
      </label>
    </fieldset>
  )
}
