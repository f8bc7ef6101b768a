// Experiment: alternate writes between servers given as url=token pairs; prints each one's p50.
import { ulid } from 'ulidx'

const targets = process.argv.slice(3).map((a) => a.split('='))
const n = Number(process.argv[2])
const t: number[][] = targets.map(() => [])
for (let i = 0; i < n; i++) {
  for (const [k, [url, token]] of targets.entries()) {
    const s = performance.now()
    const res = await fetch(`${url}/households/current/tags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `x ${ulid()}` }),
    })
    await res.arrayBuffer()
    if (res.status !== 201) throw new Error(String(res.status))
    t[k]!.push(performance.now() - s)
  }
}
for (const s of t) {
  s.sort((a, b) => a - b)
  console.log('p50', s[Math.floor(n / 2)]!.toFixed(2))
}
