import type { AssistantTool, HouseholdName } from '@hearth/engine'

/** What running one tool gave: its result, or a refusal the model can read and correct. */
export type ToolOutcome =
  | { ok: true; result: unknown }
  | { ok: false; error: { code: string; message: string; errors?: unknown } }

/** One chat turn as a provider sees it. */
export interface ChatRequest {
  message: string
  /** Earlier messages of the conversation, oldest first. */
  history: { role: 'user' | 'assistant'; content: string }[]
  /** The tools this member and key may use. */
  tools: AssistantTool[]
  /** Runs a tool by name; the stream shows the call and its result (or the action it proposed). */
  runTool(name: string, args: unknown): Promise<ToolOutcome>
  /** Shows a tool call the model made that never ran (its arguments were not JSON, say). */
  reportToolError(name: string, args: unknown, message: string): Promise<void>
  /** Runs a read quietly (no stream event), for looking names up. */
  read(operation: string, args: unknown): Promise<unknown>
  /** The household's names the member's key may read (categories, payees and their aliases, accounts, tags). */
  names(): Promise<HouseholdName[]>
  /** The caller's local day, YYYY-MM-DD, for relative dates. */
  today: string
  /** The household's base currency, for figures. */
  currency: string
  /** Aborted when the client goes away or the turn must stop. */
  signal: AbortSignal
}

/** A provider's answer: text comes through `write` as it is produced; tokens at the end. */
export interface AssistantProvider {
  readonly name: string
  chat(request: ChatRequest, write: (text: string) => Promise<void>): Promise<{ tokens: number }>
}

/**
 * A provider failed in a way the member should hear about (timeout, garbage, refusal); `tokens`
 * the provider reported for the steps that finished before it failed.
 */
export class ProviderError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly tokens = 0,
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}
