import { DataDirLockedError } from '@hearth/engine/node'
import { loadConfig } from './config.ts'
import { startServer } from './server.ts'

/** `npm start`: run the server until SIGINT or SIGTERM, then shut down gracefully. */
async function main(): Promise<void> {
  const config = loadConfig()
  const server = await startServer(config)
  if (server.bootstrap) {
    process.stdout.write(
      `${[
        '',
        'Hearth created your owner account and household on this first start.',
        `Set your password (link works once, for 24 h):  ${config.sessions.publicUrl ?? server.url}/app/setup?code=${server.bootstrap.setupCode}`,
        `Your API key (shown once, keep it safe):  ${server.bootstrap.token}`,
        `Household currency: ${server.bootstrap.settings.currency} (from ${server.bootstrap.settings.currencyFrom}); ` +
          `time zone: ${server.bootstrap.settings.timeZone} (from ${server.bootstrap.settings.timeZoneFrom}).`,
        'Change them with PATCH /households/current before you record transactions.',
        `Try:  curl -H "Authorization: Bearer ${server.bootstrap.token}" ${server.url}/households/current`,
        '',
      ].join('\n')}\n`,
    )
  }
  process.stdout.write(`Hearth is listening on ${server.url}  (API reference: ${server.url}/docs)\n`)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      server.logger.info({ signal }, 'shutting down')
      server.close().then(
        () => process.exit(0),
        (err) => {
          server.logger.error({ err }, 'shutdown failed')
          process.exit(1)
        },
      )
    })
  }
}

main().catch((error) => {
  if (error instanceof DataDirLockedError) {
    process.stderr.write(`hearth: ${error.message}\n`)
  } else {
    process.stderr.write(
      `hearth: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    )
  }
  process.exit(1)
})
