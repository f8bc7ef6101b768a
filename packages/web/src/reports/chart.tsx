import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js'
import { useEffect, useRef } from 'preact/hooks'

// Only what the four reports draw, so the bundle carries no other chart type.
Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
)
Chart.defaults.font.family =
  'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
Chart.defaults.color = '#5a6661'
Chart.defaults.borderColor = '#e3ded3'

/**
 * One Chart.js chart on a canvas. The canvas is an image to assistive technology, named by
 * `label`; the caller puts the same figures in a table beside it. A new config updates the chart
 * in place, without animation, so a change on the replica shows in the next frame.
 */
export function ChartCanvas(props: { config: ChartConfiguration; label: string; height?: number }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const chart = useRef<Chart | null>(null)
  useEffect(() => {
    if (!canvas.current) return
    chart.current = new Chart(canvas.current, props.config)
    return () => {
      chart.current?.destroy()
      chart.current = null
    }
  }, [props.config.type])
  useEffect(() => {
    const c = chart.current
    if (!c) return
    c.data = props.config.data
    if (props.config.options) c.options = props.config.options
    c.update('none')
  }, [props.config])
  return (
    <div class="report-canvas" style={{ height: `${props.height ?? 260}px` }}>
      <canvas ref={canvas} role="img" aria-label={props.label} />
    </div>
  )
}
