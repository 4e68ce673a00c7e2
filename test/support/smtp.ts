/**
 * A real SMTP server on loopback (npm `smtp-server`) that parses what it receives with `mailparser`,
 * so tests read mails (and the links in them) exactly as a mail client would:
 *
 *   const smtp = await startSmtp();
 *   const t = await startTestApp({ SMTP_URL: smtp.url });
 *   ... a request that sends a mail ...
 *   const mail = await smtp.nextMail('bob@example.com');
 *   const token = smtp.tokenFrom(mail);   // the `#token=` of the first link
 *   await smtp.close();
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { logSink, startTestApp, type TestApp } from './app.js';

export interface ReceivedMail {
  /** RCPT TO addresses (lower case). */
  to: string[];
  from: string;
  subject: string;
  text: string;
  /** The HTML part, or '' when there was none. */
  html: string;
  messageId: string;
  /** Whether the message came over TLS (STARTTLS). */
  secure: boolean;
  parsed: ParsedMail;
}

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>` (with `?tls.rejectUnauthorized=false` when STARTTLS is offered: a self-signed certificate). */
  url: string;
  port: number;
  /** Every mail received so far, in arrival order. */
  mails: ReceivedMail[];
  /** The first mail to `to` not yet taken by an earlier `nextMail`; waits up to `timeoutMs` (default 10 s). */
  nextMail(to: string, opts?: { timeoutMs?: number }): Promise<ReceivedMail>;
  /** Mails received for `to` (all of them, taken or not). */
  mailsTo(to: string): ReceivedMail[];
  /** The one-time token of the first link in the mail (`…#token=<token>`). */
  tokenFrom(mail: ReceivedMail): string;
  /** The first link of the mail's text part. */
  linkFrom(mail: ReceivedMail): string;
  /** Stops listening (connections are refused) and ends open sessions; `start()` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtp(opts: { starttls?: boolean; port?: number } = {}): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  let arrived: Array<() => void> = [];
  const make = () =>
    new SMTPServer({
      authOptional: true,
      // The helper's default: no STARTTLS (nodemailer would upgrade and refuse the self-signed certificate).
      ...(opts.starttls ? {} : { disabledCommands: ['STARTTLS'] }),
      logger: false,
      // stop(): pooled client connections are cut at once instead of after the default 30 s.
      closeTimeout: 50,
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            mails.push({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              messageId: parsed.messageId ?? '',
              secure: session.secure,
              parsed,
            });
            const waiters = arrived;
            arrived = [];
            waiters.forEach((w) => w());
            callback();
          })
          .catch(callback);
      },
    });
  let server = make();
  let port = opts.port ?? 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server.server.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();

  const mailsTo = (to: string) => mails.filter((m) => m.to.includes(to.toLowerCase()));
  const smtp: TestSmtp = {
    url: `smtp://127.0.0.1:${port}${opts.starttls ? '?tls.rejectUnauthorized=false' : ''}`,
    port,
    mails,
    mailsTo,
    async nextMail(to, { timeoutMs = 10_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = mailsTo(to).find((m) => !taken.has(m));
        if (mail) {
          taken.add(mail);
          return mail;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms (received: ${mails.map((m) => m.to.join(',')).join('; ') || 'none'})`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          arrived.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    tokenFrom(mail) {
      const match = /#token=([A-Za-z0-9_\-.~%]+)/.exec(mail.text);
      if (!match) throw new Error(`no #token= link in the mail "${mail.subject}"`);
      return decodeURIComponent(match[1]);
    },
    linkFrom(mail) {
      const match = /https?:\/\/\S+/.exec(mail.text);
      if (!match) throw new Error(`no link in the mail "${mail.subject}"`);
      return match[0];
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async start() {
      server = make();
      await listen();
    },
    async close() {
      await smtp.stop().catch(() => undefined);
    },
  };
  return smtp;
}

/** A test app that mails through its own loopback SMTP server and keeps every log line it writes. */
export interface MailingApp {
  t: TestApp;
  smtp: TestSmtp;
  /** Every log line (level info: each request), to show no token or password is ever logged. */
  logLines: string[];
  close(): Promise<void>;
}

/** What the mail flows (invitations, password reset, email change) test against: `env` adds to `SMTP_URL`. */
export async function startMailingApp(env: Record<string, string> = {}): Promise<MailingApp> {
  const smtp = await startSmtp();
  const logs = logSink();
  const t = await startTestApp({ SMTP_URL: smtp.url, ...env }, { logger: { level: 'info', stream: logs.stream } as never });
  return {
    t,
    smtp,
    logLines: logs.lines,
    async close() {
      await t.close();
      await smtp.close();
    },
  };
}
