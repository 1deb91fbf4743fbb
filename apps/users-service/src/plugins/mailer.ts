import type { FastifyBaseLogger } from 'fastify'
import { createTransport } from 'nodemailer'
import { newObjectId, type RecordStore } from '@quire/records'

export interface Mail {
  to: string
  subject: string
  text: string
}

/** A mail as kept in `mail_outbox`: the record of what was sent, and what a deployment without SMTP reads. */
export interface OutboxRecord extends Mail {
  _id: string
  from: string
  status: 'queued' | 'sent' | 'failed'
  _createdOn: string
  [field: string]: unknown
}

export interface Mailer {
  /** Writes the mail to the outbox; delivers it over SMTP in the background when SMTP is configured. */
  send(mail: Mail): Promise<void>
}

export function mailer(
  store: RecordStore,
  options: { smtpUrl?: string; from: string; log: FastifyBaseLogger },
): Mailer {
  const outbox = store.collection<OutboxRecord>('mail_outbox')
  const transport = options.smtpUrl ? createTransport(options.smtpUrl) : undefined

  async function deliver(record: OutboxRecord): Promise<void> {
    if (!transport) return
    try {
      await transport.sendMail({ from: record.from, to: record.to, subject: record.subject, text: record.text })
      await outbox.updateOne({ _id: record._id }, { $set: { status: 'sent' } })
    } catch (err) {
      // The mail stays in the outbox; the text is not logged since it may hold a token.
      options.log.warn({ err, mailId: record._id }, 'mail delivery failed')
      await outbox.updateOne({ _id: record._id }, { $set: { status: 'failed' } })
    }
  }

  return {
    async send(mail) {
      const record = await outbox.insertOne({
        _id: newObjectId(),
        from: options.from,
        status: 'queued',
        _createdOn: new Date().toISOString(),
        ...mail,
      })
      // Not awaited: how long an SMTP server takes must not tell a caller whether an account exists.
      void deliver(record)
    },
  }
}
