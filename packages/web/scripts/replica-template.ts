/**
 * Writes the replica template (`makeReplicaTemplate` in @hearth/client) to stdout: a new browser
 * replica starts from it instead of initdb and every migration. The build's `replicaTemplate`
 * plugin (vite.config.ts) runs it and serves the result at /app/replica-template.tgz.
 */
import { makeReplicaTemplate } from '@hearth/client'

const template = await makeReplicaTemplate()
process.stdout.write(new Uint8Array(await template.arrayBuffer()))
