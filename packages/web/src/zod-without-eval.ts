import { config } from 'zod'

// Zod compiles object parsers with `new Function` when it may, and probes for it once; the app's
// Content-Security-Policy allows no evaluated script (server/src/http/page-security.ts), so the
// probe would be reported as a violation. Parsers built without it behave the same.
config({ jitless: true })
