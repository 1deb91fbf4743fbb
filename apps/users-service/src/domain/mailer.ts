import { createTransport } from 'nodemailer'
import { newObjectId, type RecordStore, type Transaction } from '@quire/records'
import { COLLECTIONS, type OutboxRecord } from '../collections.js'

/** A mail, and the same text without its secret (what is kept once it is handed over). */
export interface Mail {
  to: string
  subject: string
  text: string
  redactedText: string
}

export interface Mailer {
  /**
   * Writes the mail to the outbox inside `tx` (null: a request that matched no account, written as `discarded` so
   * it costs the same work). `expiresAt`: when the mail is useless (its token expired) and is purged if unsent.
   */
  queue(tx: Transaction, mail: Mail | null, expiresAt: number): Promise<OutboxRecord>
  /** Hands a queued mail to SMTP now, in the background (after its transaction committed). */
  deliverSoon(record: OutboxRecord): void
  /** Retries the queued mails whose next attempt is due (the housekeeping timer calls it). */
  retryDue(): Promise<void>
  /** Resolves once the deliveries under way are settled (at close, so none is cut off midway). */
  drain(): Promise<void>
}

export interface MailerOptions {
  store: RecordStore
  /** `smtp://` or `smtps://`; without it mails stay in the outbox, which is then the delivery (development). */
  smtpUrl?: string | undefined
  from: string
  /** Seconds a sent or given-up mail stays (without its secret) before the purge. */
  retentionSeconds: number
  /** Epoch ms (tests pass a fixed clock). */
  now: () => number
  /** Tests hand mails to a fake transport. */
  transport?: MailTransport | undefined
}

/** What mails are handed to: nodemailer's SMTP transport, or a test's. */
export interface MailTransport {
  sendMail(mail: { from: string; to: string; subject: string; text: string }): Promise<unknown>
}

const MAX_ATTEMPTS = 5
/** 1, 2, 4, 8 minutes between attempts. */
const backoffMs = (attempts: number) => 60_000 * 2 ** (attempts - 1)

/** Where failed deliveries are told (the service's logger). */
interface Log {
  warn(details: object, message: string): void
  error(details: object, message: string): void
}

export function createMailer(options: MailerOptions, log: Log): Mailer {
  const outbox = COLLECTIONS.mailOutbox.in(options.store)
  const transport = options.transport ?? (options.smtpUrl ? createTransport(options.smtpUrl) : undefined)
  const underWay = new Set<Promise<void>>()

  /** The text with its secret goes once handed over, or given up: no usable token stays at rest. */
  const settled = (record: OutboxRecord, status: 'sent' | 'failed', now: number) => ({
    $set: {
      status,
      text: record.redactedText ?? '',
      expiresAt: now + options.retentionSeconds * 1000,
    },
    $unset: { redactedText: true },
  })

  async function deliver(record: OutboxRecord): Promise<void> {
    if (!transport) return
    // Claimed by a conditional write, so two processes (or the timer and a request) never send it twice.
    const attempts = record.attempts + 1
    const claimed = await outbox.updateOne(
      { _id: record._id, status: 'queued', attempts: record.attempts },
      { $set: { attempts, nextAttemptAt: options.now() + backoffMs(attempts) } },
    )
    if (!claimed) return
    try {
      await transport.sendMail({ from: record.from, to: record.to, subject: record.subject, text: record.text })
      await outbox.updateOne({ _id: record._id }, settled(record, 'sent', options.now()))
    } catch (err) {
      // The text is not logged: it holds a token.
      log.warn({ err, mailId: record._id, attempts }, 'mail delivery failed')
      const now = options.now()
      if (attempts >= MAX_ATTEMPTS || claimed.nextAttemptAt >= record.expiresAt) {
        await outbox.updateOne({ _id: record._id }, settled(record, 'failed', now))
      }
    }
  }

  return {
    async queue(tx, mail, expiresAt) {
      const now = options.now()
      return COLLECTIONS.mailOutbox.in(tx).insertOne({
        _id: newObjectId(),
        from: options.from,
        ...(mail ?? { to: '', subject: '', text: '' }),
        status: mail ? 'queued' : 'discarded',
        attempts: 0,
        nextAttemptAt: now,
        expiresAt,
        _createdOn: new Date(now).toISOString(),
      })
    },

    deliverSoon(record) {
      // Not awaited: how long an SMTP server takes must not tell a caller whether an account exists.
      if (record.status !== 'queued') return
      const delivery = deliver(record)
        .catch((err: unknown) => log.error({ err }, 'mail delivery'))
        .finally(() => underWay.delete(delivery))
      underWay.add(delivery)
    },

    async retryDue() {
      if (!transport) return
      const due = await outbox.find({ status: 'queued', nextAttemptAt: { $lte: options.now() } }, { limit: 100 })
      for (const record of due) await deliver(record)
    },

    async drain() {
      await Promise.all(underWay)
    },
  }
}
