import { type Hearth, ulid } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, formatCents, formatDate } from '../../format.ts'
import { type QueryResult, useWatch } from '../../hooks.ts'
import { useLookups } from '../../lookups.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { CsvMappingFields } from './csv-mapping-fields.tsx'
import {
  EMPTY_MAPPING_FORM,
  formatOfFile,
  formOf,
  type ImportFormat,
  type MappingForm,
  mappingOf,
} from './csv-mapping-form.ts'

type Preview = QueryResult<'imports.preview'>

/** A picked file: its name and its bytes as base64 (the reader tells UTF-8 from Windows-1252). */
interface PickedFile {
  name: string
  contentBase64: string
}

async function pick(file: File): Promise<PickedFile> {
  const bytes = new Uint8Array(await file.arrayBuffer())
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return { name: file.name, contentBase64: btoa(binary) }
}

/**
 * Bank files: pick or drop an OFX, QFX, CSV or camt.053 file, preview it against an account (new,
 * matched, duplicate and refused rows), map a CSV's columns (the account keeps the mapping on
 * commit), commit it as one batch, and undo a batch from the account's import list.
 */
export function ImportsScreen(props: { hearth: Hearth }) {
  const { hearth } = props
  const lookups = useLookups(hearth)
  const [accountId, setAccountId] = useState('')
  const [file, setFile] = useState<PickedFile | null>(null)
  const [format, setFormat] = useState<ImportFormat | ''>('')
  const [form, setForm] = useState<MappingForm>(EMPTY_MAPPING_FORM)
  const [preview, setPreview] = useState<Preview | null>(null)
  const [skipRefused, setSkipRefused] = useState(false)
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const batchesRead = useWatch(hearth, 'imports.list', accountId ? { accountId } : null)
  const account = lookups.account.get(accountId)

  // The account's saved mapping fills the form; an account without one starts empty.
  useEffect(() => {
    if (!accountId) return
    let live = true
    hearth.query.imports.getMapping({ id: accountId }).then(
      (saved) => live && setForm(formOf(saved.mapping)),
      () => live && setForm(EMPTY_MAPPING_FORM),
    )
    return () => {
      live = false
    }
  }, [hearth, accountId])

  const choose = async (picked: File | undefined) => {
    if (!picked) return
    setFile(await pick(picked))
    setFormat(formatOfFile(picked.name) ?? '')
    setPreview(null)
    setMessage(null)
  }
  const fileArgs = () => ({
    accountId,
    format: format as ImportFormat,
    contentBase64: file!.contentBase64,
    ...(format === 'csv' && { mapping: mappingOf(form) }),
  })
  const runPreview = () => {
    setMessage(null)
    hearth.query.imports.preview(fileArgs()).then(setPreview, (e) => {
      setPreview(null)
      setMessage({ kind: 'error', text: errorMessage(e) })
    })
  }
  const commit = () => {
    if (!preview) return
    hearth.mutate.imports
      .commit({
        ...fileArgs(),
        id: ulid(),
        planDigest: preview.digest,
        ...(skipRefused && { skipRefused: true }),
        ...(format === 'csv' && { saveMapping: true }),
      })
      .then(
        (r) => {
          setPreview(null)
          setFile(null)
          setMessage({
            kind: 'ok',
            text: `Imported ${r.counts.new} new rows, matched ${r.counts.matched}, skipped ${r.counts.duplicate} duplicates.`,
          })
        },
        (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
      )
  }
  const undo = (id: string) =>
    hearth.mutate.imports.undo({ id }).then(
      () => setMessage({ kind: 'ok', text: 'The import was undone.' }),
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )

  return (
    <section aria-labelledby="imports-title">
      <header class="screen-header">
        <h1 id="imports-title">Import a bank file</h1>
      </header>
      {message && (
        <p role={message.kind === 'error' ? 'alert' : 'status'} class={message.kind}>
          {message.text}
        </p>
      )}
      <ReadGuard hearth={hearth} reads={[lookups.reads.accounts]}>
        {() => (
          <>
            <section class="card" aria-labelledby="import-file-title">
              <h2 id="import-file-title" class="card-title">
                File
              </h2>
              <label>
                Account{' '}
                <select
                  aria-label="Account"
                  value={accountId}
                  onChange={(e) => setAccountId(e.currentTarget.value)}
                >
                  <option value="">Choose an account</option>
                  {lookups.accounts.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.name}
                    </option>
                  ))}
                </select>
              </label>
              <fieldset
                class="drop-zone"
                onDragOver={(e) => e.preventDefault()}
                onDrop={(e) => {
                  e.preventDefault()
                  void choose(e.dataTransfer?.files[0])
                }}
              >
                <legend>Bank file</legend>
                <label>
                  Bank file (OFX, QFX, CSV or camt.053){' '}
                  <input
                    type="file"
                    accept=".ofx,.qfx,.csv,.xml"
                    onChange={(e) => void choose(e.currentTarget.files?.[0])}
                  />
                </label>
                <p class="muted">{file ? `Chosen: ${file.name}` : 'Or drop the file here.'}</p>
              </fieldset>
              <label>
                Format{' '}
                <select
                  aria-label="Format"
                  value={format}
                  onChange={(e) => setFormat(e.currentTarget.value as ImportFormat)}
                >
                  <option value="">Choose a format</option>
                  <option value="ofx">OFX</option>
                  <option value="qfx">QFX</option>
                  <option value="csv">CSV</option>
                  <option value="camt053">camt.053</option>
                </select>
              </label>
              {format === 'csv' && <CsvMappingFields form={form} onChange={setForm} />}
              <button
                type="button"
                class="primary"
                disabled={!accountId || !file || !format}
                onClick={runPreview}
              >
                Preview
              </button>
            </section>
            {preview && (
              <PreviewTable preview={preview} currency={account?.currency}>
                {preview.counts.refused > 0 && (
                  <label>
                    <input
                      type="checkbox"
                      checked={skipRefused}
                      onChange={(e) => setSkipRefused(e.currentTarget.checked)}
                    />{' '}
                    Import the other rows and leave the refused ones out
                  </label>
                )}
                <button
                  type="button"
                  class="primary"
                  disabled={preview.counts.refused > 0 && !skipRefused}
                  onClick={commit}
                >
                  Import
                </button>
              </PreviewTable>
            )}
            {accountId && (
              <ReadGuard hearth={hearth} reads={[batchesRead]}>
                {() => <Batches batches={batchesRead.data?.items ?? []} onUndo={undo} />}
              </ReadGuard>
            )}
          </>
        )}
      </ReadGuard>
    </section>
  )
}

function PreviewTable(props: { preview: Preview; currency?: string; children: preact.ComponentChildren }) {
  const { counts, rows } = props.preview
  return (
    <section class="card" aria-labelledby="import-preview-title">
      <h2 id="import-preview-title" class="card-title">
        Preview
      </h2>
      <p role="status">
        {counts.new} new, {counts.matched} matched, {counts.duplicate} duplicate, {counts.ambiguous} possible
        duplicates, {counts.refused} refused
      </p>
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Outcome</th>
            <th scope="col">Date</th>
            <th scope="col">Payee</th>
            <th scope="col">Amount</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.line} data-outcome={r.outcome}>
              <td>{r.line}</td>
              <td>{r.outcome === 'refused' ? `refused: ${r.reason}` : r.outcome}</td>
              <td>{r.date ? formatDate(r.date) : ''}</td>
              <td>{r.payee ?? ''}</td>
              <td class="amount">
                {r.amountCents === null ? '' : formatCents(r.amountCents, props.currency)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.children}
    </section>
  )
}

function Batches(props: { batches: QueryResult<'imports.list'>['items']; onUndo: (id: string) => void }) {
  return (
    <section class="card" aria-labelledby="import-batches-title">
      <h2 id="import-batches-title" class="card-title">
        Imports into this account
      </h2>
      {props.batches.length === 0 && <p class="muted">No files imported yet.</p>}
      <table class="table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Format</th>
            <th scope="col">Rows</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {props.batches.map((b) => (
            <tr key={b.id} data-batch={b.id}>
              <td>{new Date(b.createdAt).toLocaleString()}</td>
              <td>{b.format}</td>
              <td>
                {b.createdCount} new, {b.matchedCount} matched, {b.duplicateCount} duplicate
              </td>
              <td>
                {b.undoneAt ? (
                  'Undone'
                ) : (
                  <button type="button" class="small" onClick={() => props.onUndo(b.id)}>
                    Undo import
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
