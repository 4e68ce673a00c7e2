import { createServer, type Server, type Socket } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import pino from 'pino';
import type { Kysely } from 'kysely';
import { logSink, startTestApp, type TestApp } from '../support/app.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { eventually, sleep } from '../support/fixtures-auth.js';
import { createMailer, type MailMessage } from '../../src/platform/mail/mailer.js';
import { buildApp, type Platform } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { testDialect } from '../support/databases.js';

const SECRET_TOKEN = 'tok-9f3c1a7e5b2d4c6e8a0b';

function invitation(to: string, token = SECRET_TOKEN, accountName = 'Acme'): MailMessage {
  return {
    to,
    template: 'invitation',
    data: {
      account_name: accountName,
      inviter_name: 'Alice Admin',
      role_name: 'editor',
      accept_url: `https://admin.example/invitations:accept#token=${token}`,
      expire_time: '2026-11-30T10:00:00Z',
    },
  };
}

/** Enqueues inside a committed transaction, as a request does, and wakes the worker after commit. */
async function enqueueCommitted(t: TestApp, message: MailMessage): Promise<string> {
  const { id } = await t.platform.deps.database.db.transaction().execute((trx) => t.platform.mail.enqueue(trx, message));
  t.platform.mail.wake();
  return id;
}

const row = (db: Kysely<any>, id: string) => db.selectFrom('mail_messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();


describe('outgoing mail over SMTP', () => {
  let smtp: TestSmtp;
  let t: TestApp;
  const logs = logSink();
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ SMTP_URL: smtp.url, MAIL_RETRY_BASE_MS: '50', MAIL_FROM: 'Platform <no-reply@mail.test>' }, { logger: { level: 'info', stream: logs.stream } });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('a committed mail is delivered over SMTP with a plain-text part, an HTML part and its own Message-ID', async () => {
    const id = await enqueueCommitted(t, invitation('bob@example.com'));
    const mail = await smtp.nextMail('bob@example.com');
    const stored = await eventually(async () => {
      const r = await row(t.fresh.database.db, id);
      return r.state === 'SENT' ? r : undefined;
    }, 'the message to be recorded as sent');
    expect(mail.messageId).toBe(stored.message_id);
    expect(mail.messageId).toMatch(/^<.+@mail\.test>$/);
    expect(mail.subject).toBe('Alice Admin invited you to Acme');
    expect(mail.from).toBe('no-reply@mail.test');
    expect(mail.text).toContain(`https://admin.example/invitations:accept#token=${SECRET_TOKEN}`);
    expect(mail.html).toContain('href="https://admin.example/invitations:accept#token=');
    expect(smtp.tokenFrom(mail)).toBe(SECRET_TOKEN);
    // Sent messages keep no copy of their data (it holds the one-time link).
    expect(stored.data).toBeNull();
  });

  it('each message has a Message-ID of its own', async () => {
    await enqueueCommitted(t, invitation('carol@example.com'));
    await enqueueCommitted(t, invitation('carol@example.com'));
    const first = await smtp.nextMail('carol@example.com');
    const second = await smtp.nextMail('carol@example.com');
    expect(first.messageId).not.toBe(second.messageId);
  });

  it('values in the HTML part are escaped', async () => {
    await enqueueCommitted(t, invitation('dave@example.com', SECRET_TOKEN, '<script>alert(1)</script> & "Co"'));
    const mail = await smtp.nextMail('dave@example.com');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;');
    expect(mail.text).toContain('<script>alert(1)</script> & "Co"');
  });

  it('the data of a queued message is stored sealed, never in clear', async () => {
    const id = await t.platform.deps.database.db.transaction().execute(async (trx) => (await t.platform.mail.enqueue(trx, invitation('erin@example.com'))).id);
    const queued = await row(t.fresh.database.db, id);
    expect(String(queued.data ?? '')).not.toContain(SECRET_TOKEN);
    t.platform.mail.wake();
    await smtp.nextMail('erin@example.com');
  });

  it('a mail enqueued in a transaction that rolls back is never sent', async () => {
    await t.platform.deps.database.db
      .transaction()
      .execute(async (trx) => {
        await t.platform.mail.enqueue(trx, invitation('rolled-back@example.com'));
        throw new Error('the request failed after enqueueing');
      })
      .catch(() => undefined);
    t.platform.mail.wake();
    // A mail committed afterwards arrives: the worker ran past the point where the other would have gone.
    await enqueueCommitted(t, invitation('after-rollback@example.com'));
    await smtp.nextMail('after-rollback@example.com');
    const pending = await t.fresh.database.db.selectFrom('mail_messages').select('id').where('recipient', '=', 'rolled-back@example.com').execute();
    expect(pending).toEqual([]);
    expect(smtp.mailsTo('rolled-back@example.com')).toEqual([]);
  });

  it('SMTP server down: the message is retried with backoff and delivered once the server is up', async () => {
    await smtp.stop();
    const id = await enqueueCommitted(t, invitation('frank@example.com'));
    const failedOnce = await eventually(async () => {
      const r = await row(t.fresh.database.db, id);
      return r.state === 'QUEUED' && Number(r.attempt) >= 1 ? r : undefined;
    }, 'a failed attempt');
    expect(failedOnce.last_error).toMatch(/ECONNREFUSED|connect/i);
    expect(Number(failedOnce.run_after)).toBeGreaterThan(Number(failedOnce.update_time));
    await smtp.start();
    const mail = await smtp.nextMail('frank@example.com');
    const sent = await eventually(async () => {
      const r = await row(t.fresh.database.db, id);
      return r.state === 'SENT' ? r : undefined;
    }, 'the message to be sent');
    expect(mail.messageId).toBe(sent.message_id);
    expect(smtp.mailsTo('frank@example.com')).toHaveLength(1);
    // The log says what failed, never the message's content.
    const mailLines = logs.lines.filter((l) => l.includes(id));
    expect(mailLines.some((l) => l.includes('retrying later'))).toBe(true);
    expect(logs.lines.join('\n')).not.toContain(SECRET_TOKEN);
  });
});

describe('outgoing mail: a message that keeps failing', () => {
  let t: TestApp;
  let closedPort: number;
  const logs = logSink();
  beforeAll(async () => {
    // A port nothing listens on.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    t = await startTestApp(
      { SMTP_URL: `smtp://127.0.0.1:${closedPort}`, MAIL_RETRY_BASE_MS: '10', MAIL_MAX_ATTEMPTS: '3' },
      { logger: { level: 'info', stream: logs.stream } },
    );
  });
  afterAll(() => t?.close());

  it('ends FAILED after MAIL_MAX_ATTEMPTS attempts, logged without its secrets', async () => {
    const id = await enqueueCommitted(t, invitation('gina@example.com'));
    const failed = await eventually(async () => {
      const r = await row(t.fresh.database.db, id);
      return r.state === 'FAILED' ? r : undefined;
    }, 'the message to fail');
    expect(Number(failed.attempt)).toBe(3);
    expect(failed.data).toBeNull();
    const lines = logs.lines.filter((l) => l.includes(id));
    expect(lines.filter((l) => l.includes('retrying later'))).toHaveLength(2);
    expect(lines.filter((l) => l.includes('mail failed for good'))).toHaveLength(1);
    expect(logs.lines.join('\n')).not.toContain(SECRET_TOKEN);
  });
});

describe('outgoing mail without SMTP_URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ADMIN_BASE_URL: 'https://admin.example.com/app/' });
  });
  afterAll(() => t?.close());

  it('each mail is an .eml file in DATA_DIR/outbox an operator can open', async () => {
    const id = await enqueueCommitted(t, invitation('hank@example.com'));
    const file = join(t.config.dataDir, 'outbox', `${id}.eml`);
    const raw = await eventually(() => readFile(file).catch(() => undefined), 'the .eml file');
    const parsed = await simpleParser(raw);
    const stored = await row(t.fresh.database.db, id);
    expect(parsed.messageId).toBe(stored.message_id);
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '').toBe('hank@example.com');
    expect(parsed.text).toContain(`#token=${SECRET_TOKEN}`);
    expect(parsed.html).toContain('Accept the invitation');
    // Only whole files: no temporary left behind.
    expect((await readdir(join(t.config.dataDir, 'outbox'))).filter((f) => !f.endsWith('.eml'))).toEqual([]);
  });

  it('links in mails start at ADMIN_BASE_URL and carry the token in the fragment', () => {
    expect(t.platform.mail.link('/password-reset', 'a/b+c')).toBe('https://admin.example.com/app/password-reset#token=a%2Fb%2Bc');
  });
});

describe('outgoing mail: ADMIN_BASE_URL defaults to PUBLIC_BASE_URL', () => {
  it('links start at PUBLIC_BASE_URL when ADMIN_BASE_URL is unset', () => {
    // Secrets given, so loading writes nothing into DATA_DIR.
    const secrets = { JWT_SECRET: 'x'.repeat(48), ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), MEDIA_SIGNING_SECRET: 'y'.repeat(32) };
    const config = loadConfig({ ...secrets, DATA_DIR: tmpdir(), PUBLIC_BASE_URL: 'https://platform.example/' });
    expect(config.adminBaseUrl).toBe('https://platform.example');
  });
});

describe('outgoing mail: STARTTLS', () => {
  let smtp: TestSmtp;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await startSmtp({ starttls: true });
    t = await startTestApp({ SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('the connection is upgraded with STARTTLS when the server offers it', async () => {
    await enqueueCommitted(t, invitation('ivy@example.com'));
    const mail = await smtp.nextMail('ivy@example.com');
    expect(mail.secure).toBe(true);
  });
});

describe('outgoing mail: a worker killed after claiming', () => {
  let smtp: TestSmtp;
  let t: TestApp;
  let hung: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    smtp = await startSmtp();
    // Accepts connections and never greets: a worker sending through it is stuck, like one that died.
    hung = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    t = await startTestApp({ SMTP_URL: smtp.url, MAIL_LEASE_MS: '400' }, { mailWorker: false });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    sockets.forEach((s) => s.destroy());
    hung?.close();
  });

  it('after the lease expires another worker sends the message, with the same Message-ID, once', async () => {
    const id = await enqueueCommitted(t, invitation('jack@example.com'));
    const deps = t.platform.deps;
    const killed = createMailer({
      database: deps.database,
      secrets: deps.secrets,
      logger: pino({ level: 'silent' }),
      workerId: 'killed-worker',
      settings: { ...t.config.mail, smtpUrl: `smtp://127.0.0.1:${(hung.address() as { port: number }).port}`, leaseMs: 400, adminBaseUrl: t.config.adminBaseUrl, dataDir: t.config.dataDir },
    });
    const stuck = killed.runOne();
    const claimed = await eventually(async () => {
      const r = await row(t.fresh.database.db, id);
      return r.state === 'SENDING' && r.lease_owner === 'killed-worker' ? r : undefined;
    }, 'the first worker to claim the message');
    const worker = t.platform.mail.startWorker({ pollMs: 20 });
    try {
      const mail = await smtp.nextMail('jack@example.com');
      expect(mail.messageId).toBe(claimed.message_id);
      await stuck;
      await sleep(100);
      const final = await row(t.fresh.database.db, id);
      expect(final.state).toBe('SENT');
      expect(Number(final.attempt)).toBe(2);
      expect(smtp.mailsTo('jack@example.com')).toHaveLength(1);
    } finally {
      await worker.stop();
      await killed.close();
    }
  });
});

describe('outgoing mail: sent by the worker of another process', () => {
  let smtp: TestSmtp;
  let server: TestApp;
  let workerProcess: Platform;
  let stopWorker: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    smtp = await startSmtp();
    // The server sends nothing itself (like WORKER=off); a second platform on the same database plays `npm run worker`.
    server = await startTestApp({ SMTP_URL: smtp.url }, { mailWorker: false });
    workerProcess = await buildApp({ config: server.config, database: server.fresh.database });
    // On PostgreSQL the poll is an hour: only the NOTIFY sent at commit can wake it in time. SQLite has no
    // such channel: its workers poll.
    stopWorker = workerProcess.mail.startWorker({ pollMs: testDialect() === 'postgres' ? 3600_000 : 50 }).stop;
  });
  afterAll(async () => {
    await stopWorker?.();
    await workerProcess?.app.close();
    await server?.close();
    await smtp?.close();
  });

  it('a mail committed by a request on one process is sent by the worker of another, woken at commit on PostgreSQL', async () => {
    const user = await server.signUp();
    const res = await server.request('POST', '/tenant-api/v1/users:request_password_reset', { body: { email: user.email } });
    expect(res.statusCode, res.body).toBe(200);
    const mail = await smtp.nextMail(user.email);
    expect(smtp.tokenFrom(mail).length).toBeGreaterThanOrEqual(22);
  });
});
