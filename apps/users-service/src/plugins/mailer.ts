import fp from 'fastify-plugin'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { createTransport } from 'nodemailer'
import { newObjectId, type RecordStore } from '@quire/records'
import { COLLECTIONS, type OutboxRecord } from '../collections.js'

type Mail = Pick<OutboxRecord, 'to' | 'subject' | 'text'>

export interface Mailer {
  /** Writes the mail to the outbox; delivers it over SMTP in the background when SMTP is configured. */
  send(mail: Mail): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    mailer: Mailer
  }
}

interface MailerOptions {
  store: RecordStore
  /** `smtp://` or `smtps://`; without it mails are only written to the outbox. */
  smtpUrl?: string | undefined
  from: string
}

function mailer({ store, smtpUrl, from }: MailerOptions, log: FastifyBaseLogger): Mailer {
  const outbox = COLLECTIONS.mailOutbox.in(store)
  const transport = smtpUrl ? createTransport(smtpUrl) : undefined

  async function deliver(record: OutboxRecord): Promise<void> {
    if (!transport) return
    try {
      await transport.sendMail({ from: record.from, to: record.to, subject: record.subject, text: record.text })
      await outbox.updateOne({ _id: record._id }, { $set: { status: 'sent' } })
    } catch (err) {
      // The mail stays in the outbox; the text is not logged since it may hold a token.
      log.warn({ err, mailId: record._id }, 'mail delivery failed')
      await outbox.updateOne({ _id: record._id }, { $set: { status: 'failed' } })
    }
  }

  return {
    async send(mail) {
      const record = await outbox.insertOne({
        _id: newObjectId(),
        from,
        status: 'queued',
        _createdOn: new Date().toISOString(),
        ...mail,
      })
      // Not awaited: how long an SMTP server takes must not tell a caller whether an account exists.
      void deliver(record)
    },
  }
}

/** `app.mailer`: mails to account holders, kept in the outbox whether or not they can be sent. */
export const mailerPlugin = fp(
  async (app: FastifyInstance, options: MailerOptions) => {
    app.decorate('mailer', mailer(options, app.log))
  },
  { name: '@quire/users-mailer', fastify: '5.x' },
)
