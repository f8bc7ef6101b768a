import { operations, requireAiConsent, type Store, toolsFor } from '@hearth/engine'
import { Hono } from 'hono'
import { runTool } from '../ai/tool-runner.ts'
import { type AppEnv, householdContext } from '../http/env.ts'
import { requireScope } from '../http/scope.ts'

/** The MCP endpoint's path: one per household, `current` for the key's default household. */
export const MCP_PATH = '/households/:householdId/mcp'

/**
 * The MCP SDK, loaded at the first MCP request rather than at start: importing it took about 0.3 s
 * of every server's start, MCP used or not.
 */
let mcpLoaded: ReturnType<typeof loadMcpLibrary> | undefined
const mcpLibrary = () => (mcpLoaded ??= loadMcpLibrary())
const loadMcpLibrary = () =>
  Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, transport, types]) => ({ ...server, ...transport, ...types }))

/**
 * Hearth as an MCP server (Streamable HTTP, stateless): the assistant's tools for the member and
 * key behind the request's API key. Read tools answer at once; write tools create the same
 * pending actions as chat, which the member confirms through the API or the app.
 */
export function mcpRoutes(store: Store) {
  return new Hono<AppEnv>().all(MCP_PATH, requireScope('ai:tools'), async (c) => {
    const ctx = householdContext(c.var)
    await requireAiConsent(store.db, ctx.householdId, ctx.userId)
    const tools = toolsFor(ctx, () => operations.byName)
    const {
      Server,
      WebStandardStreamableHTTPServerTransport,
      CallToolRequestSchema,
      ListToolsRequestSchema,
    } = await mcpLibrary()
    const server = new Server({ name: 'hearth', version: '0.1.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: tools.map((t) => ({
        name: t.name,
        description: `${t.description}${t.kind === 'write' ? ' (Creates a pending action the member confirms; nothing changes until then.)' : ''}`,
        inputSchema: t.inputSchema as { type: 'object' },
      })),
    }))
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const outcome = await runTool(
        {
          store,
          ctx: { ...ctx, now: new Date() },
          tools,
          conversationId: null,
          messageId: null,
          stream: null,
        },
        request.params.name,
        request.params.arguments ?? {},
      )
      return {
        content: [
          { type: 'text', text: JSON.stringify(outcome.ok ? outcome.result : { error: outcome.error }) },
        ],
        ...(outcome.ok ? { structuredContent: { result: outcome.result } } : { isError: true }),
      }
    })
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    return transport.handleRequest(c.req.raw)
  })
}
