import { describe, expect, it } from 'vitest'
import { EMPTY_MAPPING_FORM, formatOfFile, formOf, mappingOf } from './csv-mapping-form.ts'

describe('the CSV mapping form', () => {
  it('sends only what was filled in, typed as the REST mapping takes it', () => {
    expect(mappingOf(EMPTY_MAPPING_FORM)).toEqual({})
    const form = {
      ...EMPTY_MAPPING_FORM,
      date: 'Buchungstag',
      amount: ' Betrag (EUR) ',
      payee: 'Auftraggeber / Begünstigter',
      dateFormat: 'DD.MM.YY',
      decimal: ',' as const,
      delimiter: ';' as const,
      headerLine: '7',
      invert: true,
    }
    expect(mappingOf(form)).toEqual({
      date: 'Buchungstag',
      amount: 'Betrag (EUR)',
      payee: 'Auftraggeber / Begünstigter',
      dateFormat: 'DD.MM.YY',
      decimal: ',',
      delimiter: ';',
      headerLine: 7,
      invert: true,
    })
    expect(mappingOf({ ...EMPTY_MAPPING_FORM, date: '0', amount: '2', noHeader: true })).toEqual({
      date: '0',
      amount: '2',
      header: false,
    })
  })

  it('fills the form from a saved mapping and gives the same mapping back', () => {
    const saved = { date: 'Date', debit: 'Out', credit: 'In', dateFormat: 'MM/DD/YYYY', headerLine: 3 }
    expect(mappingOf(formOf(saved))).toEqual(saved)
  })

  it('tells the format from the file name', () => {
    expect(formatOfFile('Statement.QFX')).toBe('qfx')
    expect(formatOfFile('umsatz.csv')).toBe('csv')
    expect(formatOfFile('camt053.xml')).toBe('camt053')
    expect(formatOfFile('notes.txt')).toBe(null)
  })
})
