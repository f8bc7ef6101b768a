import { benchArgs, openBenchStore } from './bench-store.ts'
import { findSeeded, SEED, seedHousehold } from './household-seed.ts'

/** `npm run bench:seed [-- --store pglite|postgres|both]`: builds the 100k household once per store. */
async function main(): Promise<void> {
  const { stores } = benchArgs()
  for (const name of stores) {
    const store = await openBenchStore(name)
    try {
      if (await findSeeded(store)) {
        console.log(`[${name}] already seeded (${store.location}); nothing to do`)
        continue
      }
      console.log(`[${name}] seeding ${SEED.transactions} transactions into ${store.location}`)
      const began = performance.now()
      await seedHousehold(store, (m) => console.log(`[${name}] ${m}`))
      console.log(`[${name}] seeded in ${((performance.now() - began) / 1000).toFixed(1)} s`)
    } finally {
      await store.close()
    }
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
