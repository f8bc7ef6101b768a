import { type Kysely, sql } from 'kysely'

/**
 * The assistant's tables (issue 29). All stay on the server (no change-log trigger): consents,
 * conversations and their messages, actions awaiting a member's confirmation, usage counters and
 * insights (one per dedupe key, so regenerating never repeats one).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table ai_consents (
      household_id text not null references households (id),
      user_id text not null references users (id),
      purpose text not null,
      granted_at timestamptz not null,
      primary key (household_id, user_id, purpose)
    )`.execute(db)
  await sql`
    create table ai_conversations (
      household_id text not null references households (id),
      id text not null,
      created_by text not null references users (id),
      title text not null,
      status text not null default 'open',
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (household_id, id)
    )`.execute(db)
  await sql`create index ai_conversations_recent_idx on ai_conversations (household_id, updated_at desc, id desc)`.execute(
    db,
  )
  await sql`
    create table ai_messages (
      household_id text not null,
      id text not null,
      conversation_id text not null,
      role text not null,
      content text not null,
      status text not null,
      parts jsonb not null default '[]',
      tokens integer not null default 0,
      created_at timestamptz not null,
      primary key (household_id, id),
      foreign key (household_id, conversation_id) references ai_conversations (household_id, id) on delete cascade
    )`.execute(db)
  await sql`create index ai_messages_conversation_idx on ai_messages (household_id, conversation_id, id)`.execute(
    db,
  )
  await sql`
    create table ai_actions (
      household_id text not null references households (id),
      id text not null,
      conversation_id text,
      created_by text not null references users (id),
      operation text not null,
      args jsonb not null,
      summary text not null,
      preview jsonb not null,
      status text not null default 'pending',
      result jsonb,
      error jsonb,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      resolved_at timestamptz,
      resolved_by text,
      primary key (household_id, id)
    )`.execute(db)
  await sql`create index ai_actions_pending_idx on ai_actions (household_id, created_by, status, id)`.execute(
    db,
  )
  await sql`
    create table ai_usage (
      household_id text not null references households (id),
      user_id text not null references users (id),
      day date not null,
      requests integer not null default 0,
      tokens bigint not null default 0,
      primary key (household_id, user_id, day)
    )`.execute(db)
  await sql`
    create table ai_insights (
      household_id text not null references households (id),
      id text not null,
      kind text not null,
      dedupe_key text not null,
      period_start date not null,
      period_end date not null,
      severity text not null,
      title text not null,
      body text not null,
      evidence jsonb not null,
      created_at timestamptz not null,
      dismissed_at timestamptz,
      dismissed_by text,
      primary key (household_id, id),
      unique (household_id, dedupe_key)
    )`.execute(db)
  await sql`create index ai_insights_recent_idx on ai_insights (household_id, created_at desc, id desc)`.execute(
    db,
  )
}
