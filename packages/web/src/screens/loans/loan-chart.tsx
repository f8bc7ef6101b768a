import type { ChartConfiguration } from 'chart.js'
import { useMemo } from 'preact/hooks'
import { formatCents } from '../../format.ts'
import { ChartCanvas } from '../../reports/chart.tsx'
import { toUnits } from '../../reports/range.ts'

type Row = { date: string; balanceCents: string }

/**
 * The balance after each payment under the current plan and, when there is one, the what-if:
 * straight lines between payments (no smoothing, which would overshoot a balance), the axis in
 * the loan's currency. The schedule table under it is the chart's text alternative.
 */
export function LoanChart(props: { current: Row[]; whatIf: Row[] | null; currency: string }) {
  const { current, whatIf, currency } = props
  const config = useMemo<ChartConfiguration>(() => {
    const labels = current.map((r) => r.date.slice(0, 7))
    const money = new Intl.NumberFormat('en', { style: 'currency', currency, notation: 'compact' })
    return {
      type: 'line',
      data: {
        labels,
        datasets: [
          {
            label: 'Current plan',
            data: current.map((r) => toUnits(r.balanceCents)),
            borderColor: '#2f5d50',
            backgroundColor: '#2f5d50',
            tension: 0,
            pointRadius: 0,
          },
          ...(whatIf
            ? [
                {
                  label: 'What-if',
                  // The what-if ends sooner (or later): pad to the current plan's months.
                  data: labels.map((month) => {
                    const row = whatIf.find((r) => r.date.slice(0, 7) === month)
                    return row ? toUnits(row.balanceCents) : month > (whatIf.at(-1)?.date ?? '') ? 0 : null
                  }),
                  borderColor: '#e07a3f',
                  backgroundColor: '#e07a3f',
                  borderDash: [6, 4],
                  tension: 0,
                  pointRadius: 0,
                },
              ]
            : []),
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: {
            callbacks: {
              label: (item: { dataset: { label?: string }; raw: unknown }) =>
                `${item.dataset.label}: ${formatCents(String(Math.round(Number(item.raw) * 100)), currency)}`,
            },
          },
        },
        scales: {
          x: { grid: { display: false }, ticks: { maxRotation: 0, autoSkipPadding: 16 } },
          y: { beginAtZero: true, ticks: { callback: (v: number | string) => money.format(Number(v)) } },
        },
      },
    } as ChartConfiguration
  }, [current, whatIf, currency])
  const first = current[0]
  const last = current.at(-1)
  return (
    <ChartCanvas
      config={config}
      label={`Balance after each payment, ${currency}${first && last ? `, from ${formatCents(first.balanceCents, currency)} in ${first.date.slice(0, 7)} to zero in ${last.date.slice(0, 7)}` : ''}${whatIf ? ', with the what-if as a dashed line' : ''}. The schedule table has every figure.`}
    />
  )
}
