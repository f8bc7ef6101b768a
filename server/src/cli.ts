import { runCli } from './cli/run-cli.ts'

/** `npm run hearth -- <command>`: one command against the store, then exit with its code. */
runCli(process.argv.slice(2)).then((code) => process.exit(code))
