import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type nodemailer from 'nodemailer';
import type { Database } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { SecretBox } from '../crypto.js';
import { newId } from '../ids.js';
import { startWorkerLoops, Wakeup } from '../jobs/worker-loops.js';
import { createLeaseQueue, type LeasedRow } from '../jobs/lease.js';
import { checkMailData, renderMail, type MailTemplateId } from './templates.js';

export type { MailTemplateId } from './templates.js';

/**
 * Outgoing mail (docs/architecture.md, Outgoing mail). A message is a row of `mail_messages`
 * written inside the transaction that causes it, so a rolled-back request sends nothing; mail
 * workers (in every server with WORKER=inline, and in `npm run worker`) claim due rows with a lease
 * (`FOR UPDATE SKIP LOCKED` on PostgreSQL), render the template and hand it to the transport
 * (SMTP when SMTP_URL is set, else an `.eml` file in DATA_DIR/outbox). Failures are retried with
 * exponential backoff; a message still failing after `maxAttempts` ends FAILED. The Message-ID is
 * fixed at enqueue: a worker that dies after handing a message to the SMTP server but before
 * recording it leaves a lease that expires, and the resend carries the same Message-ID, which
 * receiving servers and clients use to drop the duplicate.
 */

export interface MailMessage {
  to: string;
  template: MailTemplateId;
  data: Record<string, string>;
  /** BCP 47; reserved (templates are English today). */
  locale?: string;
}

export interface MailSettings {
  /** `smtp://` / `smtps://` URL; unset: the local outbox. */
  smtpUrl: string | undefined;
  /** The From header. */
  from: string;
  /** Where links in mails point (ADMIN_BASE_URL). */
  adminBaseUrl: string;
  dataDir: string;
  maxAttempts: number;
  /** First retry delay; doubles per attempt (with jitter), at most an hour. */
  retryBaseMs: number;
  /** How long a claimed message is reserved for its worker; every transport timeout stays below it. */
  leaseMs: number;
}

export interface Mailer {
  /** Stores the message inside the caller's transaction; call `ctx.afterCommit(() => deps.mail.wake())`. */
  enqueue(trx: Kysely<DB>, message: MailMessage): Promise<{ id: string }>;
  /** Nudges this process's mail workers to look now instead of at their next poll. */
  wake(): void;
  /** A link for a mail: ADMIN_BASE_URL + path + `#token=…` (a fragment never reaches a server log or a Referer). */
  link(path: string, token: string): string;
  /** Claims and sends (or reschedules) one due message; false when there was none. */
  runOne(): Promise<boolean>;
  /** Starts `concurrency` worker loops; `stop()` lets a send in progress finish. */
  startWorker(opts?: { concurrency?: number; pollMs?: number }): { stop(): Promise<void> };
  /** Closes pooled SMTP connections. */
  close(): Promise<void>;
}

/** PostgreSQL NOTIFY channel announcing new mail to workers in other processes. */
const MAIL_CHANNEL = 'platform_mail';
const MAX_RETRY_DELAY_MS = 3600_000;
/** Ended messages (their data already cleared) are kept this long for operators, then purged. */
export const MAIL_RETENTION_MS = 7 * 24 * 3600_000;

interface Transport {
  send(envelope: { id: string; messageId: string; to: string; subject: string; text: string; html: string }): Promise<void>;
  close(): void;
}

// Loaded with the first message: some 20 MB of a server that may send none (idle RSS, issue 24).
let nodemailerModule: Promise<typeof nodemailer> | undefined;
const loadNodemailer = () => (nodemailerModule ??= import('nodemailer').then((loaded) => loaded.default));

function smtpTransport(settings: MailSettings): Transport {
  // Pooled: connections are reused across messages. Plain smtp:// upgrades with STARTTLS whenever the
  // server offers it (nodemailer's default); smtps:// is TLS from the start. Every timeout stays below
  // the lease, so a hung server cannot keep a message claimed past it.
  const timeout = Math.max(1000, Math.floor(settings.leaseMs / 3));
  let transporter: ReturnType<typeof nodemailer.createTransport> | undefined;
  return {
    async send(m) {
      // why (the cast below): nodemailer's typings have no overload taking a URL together with pool options.
      transporter ??= (await loadNodemailer()).createTransport({
        url: settings.smtpUrl,
        pool: true,
        maxConnections: 2,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
      } as never);
      await transporter.sendMail({ from: settings.from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: m.messageId });
    },
    close: () => transporter?.close(),
  };
}

function outboxTransport(settings: MailSettings): Transport {
  const dir = join(settings.dataDir, 'outbox');
  // nodemailer composes the full RFC 5322 message (headers, multipart/alternative) without sending it.
  let composer: ReturnType<typeof nodemailer.createTransport> | undefined;
  return {
    async send(m) {
      composer ??= (await loadNodemailer()).createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
      const info = await composer.sendMail({ from: settings.from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: m.messageId });
      await mkdir(dir, { recursive: true });
      // Written whole then renamed: an operator (or a crashed worker's successor) never sees half a file.
      const file = join(dir, `${m.id}.eml`);
      const partial = `${file}.${randomUUID().slice(0, 8)}.tmp`;
      await writeFile(partial, info.message as Buffer, { mode: 0o600 });
      await rename(partial, file);
    },
    close: () => undefined,
  };
}

/** An SMTP 5xx answer (unknown recipient, refused sender): retrying cannot help. */
function isPermanent(err: unknown): boolean {
  const code = (err as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/** What may be logged of a send error: no message content, no credentials of the SMTP URL. */
function describeError(err: unknown): string {
  const e = err as { code?: string; responseCode?: number; message?: string };
  const message = String(e?.message ?? err).replace(/\b(smtps?:\/\/)[^@\s]*@/gi, '$1***@');
  return [e?.code, e?.responseCode, message.slice(0, 300)].filter((x) => x !== undefined && x !== '').join(' ');
}

export function createMailer(deps: { database: Database; secrets: SecretBox; logger: FastifyBaseLogger; settings: MailSettings; workerId?: string }): Mailer {
  const { settings } = deps;
  const { db, dialect } = deps.database;
  const workerId = deps.workerId ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
  const domain = /@([^>\s]+)>?\s*$/.exec(settings.from)?.[1] ?? 'localhost';
  let transport: Transport | undefined;
  const transportNow = () => (transport ??= settings.smtpUrl ? smtpTransport(settings) : outboxTransport(settings));
  const wakeup = new Wakeup();

  const queue = createLeaseQueue({ database: deps.database, table: 'mail_messages', queued: 'QUEUED', leased: 'SENDING', leaseMs: settings.leaseMs, workerId });

  /** Records the end of this worker's claim; nothing when the lease went to another worker meanwhile. */
  async function settle(id: string, values: Record<string, unknown>): Promise<void> {
    await queue.settle(id, values);
  }

  async function deliver(row: LeasedRow<'mail_messages'>): Promise<void> {
    const attempt = Number(row.attempt);
    const log = { mail: row.id, template: row.template, attempt };
    if (attempt > settings.maxAttempts) {
      // Claimed this often without an outcome: its workers kept dying.
      await settle(row.id, { state: 'FAILED', data: null, last_error: 'claimed too often without an outcome' });
      deps.logger.error(log, 'mail given up: its workers stopped while sending it');
      return;
    }
    try {
      // Cleared only when the message is settled; a settled message is never claimed again.
      if (row.data === null) throw new Error('the message has no data left to send');
      const data = JSON.parse(deps.secrets.open(row.data)) as Record<string, string>;
      const rendered = renderMail(row.template as MailTemplateId, data, row.locale ?? undefined);
      await transportNow().send({ id: row.id, messageId: row.message_id, to: row.recipient, ...rendered });
      await settle(row.id, { state: 'SENT', data: null, send_time: Date.now(), last_error: null });
      deps.logger.info(log, 'mail sent');
    } catch (err) {
      const error = describeError(err);
      if (isPermanent(err) || attempt >= settings.maxAttempts) {
        await settle(row.id, { state: 'FAILED', data: null, last_error: error });
        deps.logger.error({ ...log, error }, 'mail failed for good');
      } else {
        const runAfter = (await queue.retry(row.id, { attempt, baseMs: settings.retryBaseMs, maxMs: MAX_RETRY_DELAY_MS, values: { last_error: error } })) ?? Date.now();
        deps.logger.warn({ ...log, error, retry_time: new Date(runAfter).toISOString() }, 'mail not sent; retrying later');
      }
    }
  }

  async function runOne(): Promise<boolean> {
    const [row] = await queue.claim(Date.now());
    if (!row) return false;
    await deliver(row);
    return true;
  }

  async function purgeEnded(now: number): Promise<void> {
    await db
      .deleteFrom('mail_messages')
      .where('state', 'in', ['SENT', 'FAILED'])
      .where('update_time', '<', now - MAIL_RETENTION_MS)
      .execute();
  }

  const mailer: Mailer = {
    async enqueue(trx, message) {
      checkMailData(message.template, message.data);
      const now = Date.now();
      const id = newId(now);
      await trx
        .insertInto('mail_messages')
        .values({
          id,
          message_id: `<${id}.${randomUUID()}@${domain}>`,
          recipient: message.to,
          template: message.template,
          locale: message.locale ?? null,
          data: deps.secrets.seal(JSON.stringify(message.data)),
          state: 'QUEUED',
          attempt: 0,
          run_after: now,
          create_time: now,
          update_time: now,
        })
        .execute();
      await dialect.notify(trx, MAIL_CHANNEL);
      return { id };
    },
    wake: () => wakeup.wake(),
    link(path, token) {
      const base = settings.adminBaseUrl.replace(/\/$/, '');
      return `${base}${path.startsWith('/') ? path : `/${path}`}#token=${encodeURIComponent(token)}`;
    },
    runOne,
    startWorker(opts = {}) {
      const loops = startWorkerLoops({
        concurrency: opts.concurrency ?? 2,
        pollMs: opts.pollMs ?? 1000,
        runOne,
        housekeeping: purgeEnded,
        wakeup,
        channel: MAIL_CHANNEL,
        database: deps.database,
        logger: deps.logger,
        what: 'mail',
      });
      return {
        async stop() {
          await loops.halt();
          await loops.unsubscribe();
        },
      };
    },
    async close() {
      transport?.close();
      transport = undefined;
    },
  };
  return mailer;
}
