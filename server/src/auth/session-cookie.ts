import type { IncomingHttpHeaders } from 'node:http'
import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { parse } from 'hono/utils/cookie'
import type { SessionSettings } from './session-settings.ts'

/** The cookie's name over plain http, and over https (`__Host-`: Secure, this host only, path `/`). */
export const SESSION_COOKIE = 'hearth_session'
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`

/** Whether this request's cookie is sent `Secure` under the `__Host-` name. */
export function secureCookie(c: Context, settings: SessionSettings): boolean {
  if (settings.secure !== 'auto') return settings.secure === 'on'
  return new URL(c.req.url).protocol === 'https:' || Boolean(settings.publicUrl?.startsWith('https:'))
}

/** The session token a request's cookie carries, under either name. */
export function sessionCookieOf(c: Context): string | undefined {
  return getCookie(c, SECURE_SESSION_COOKIE) ?? getCookie(c, SESSION_COOKIE)
}

/** The session token a WebSocket upgrade's cookie carries (sync, note rooms). */
export function sessionCookieOfUpgrade(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.cookie
  if (!header) return undefined
  const jar = parse(header)
  return jar[SECURE_SESSION_COOKIE] ?? jar[SESSION_COOKIE]
}

/**
 * Sets the session cookie: HttpOnly (no script reads it), SameSite=Lax (no other site's request
 * carries it, but a link followed to the app does), for the session's whole life.
 */
export function setSessionCookie(c: Context, token: string, settings: SessionSettings): void {
  const secure = secureCookie(c, settings)
  setCookie(c, secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    secure,
    path: '/',
    maxAge: Math.floor(settings.maxMs / 1000),
  })
}

/** Clears the session cookie under both names. */
export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/' })
  deleteCookie(c, SECURE_SESSION_COOKIE, { path: '/', secure: true })
}
