/**
 * IPv6 forms that embed a non-public IPv4 address: the form, that address, and its range. The
 * guard's unit test and the webhook HTTP test both try every one.
 */
export const EMBEDDED_PRIVATE: [form: string, v4: string, range: string][] = [
  // IPv4-compatible (::/96, deprecated but parsed by every stack).
  ['::127.0.0.1', '127.0.0.1', 'loopback'],
  ['::10.0.0.1', '10.0.0.1', 'private'],
  ['::192.168.0.1', '192.168.0.1', 'private'],
  // IPv4-mapped and IPv4-translated (RFC 6145).
  ['::ffff:127.0.0.1', '127.0.0.1', 'loopback'],
  ['::ffff:10.0.0.1', '10.0.0.1', 'private'],
  ['::ffff:0:192.168.0.1', '192.168.0.1', 'private'],
  // NAT64, the well-known prefix 64:ff9b::/96.
  ['64:ff9b::127.0.0.1', '127.0.0.1', 'loopback'],
  ['64:ff9b::10.0.0.1', '10.0.0.1', 'private'],
  ['64:ff9b::100.64.0.1', '100.64.0.1', 'carrierGradeNat'],
  // 6to4: 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
  ['2002:7f00:1::', '127.0.0.1', 'loopback'],
  ['2002:c0a8:1::1', '192.168.0.1', 'private'],
  // Teredo: the client address is the last 32 bits, bit-inverted (7f00:0001 is 80ff:fffe).
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1', 'loopback'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', '10.0.0.1', 'private'],
]
