/**
 * A loopback DNS server speaking the real wire protocol over UDP (dns2), for `:verify` tests:
 * node's resolver asks it through `DNS_RESOLVER`. Names without a record answer NXDOMAIN; names
 * marked failing answer SERVFAIL.
 */
import dns2 from 'dns2';

export interface TestDnsServer {
  /** `127.0.0.1:{port}`, as DNS_RESOLVER takes it. */
  address: string;
  setCname(name: string, target: string): void;
  remove(name: string): void;
  fail(name: string): void;
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const cnames = new Map<string, string>();
  const failing = new Set<string>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = question.name.toLowerCase();
      if (failing.has(name)) {
        response.header.rcode = Packet.RCODE.SERVFAIL;
      } else if (cnames.has(name) && question.type === Packet.TYPE.CNAME) {
        response.answers.push({ name: question.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 60, domain: cnames.get(name) } as never);
      } else {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  let closed = false;
  return {
    address: `127.0.0.1:${(addresses as any).udp.port}`,
    setCname: (name, target) => cnames.set(name.toLowerCase(), target),
    remove: (name) => cnames.delete(name.toLowerCase()),
    fail: (name) => failing.add(name.toLowerCase()),
    // Idempotent: a test may stop the server early to make DNS unreachable.
    close: async () => {
      if (closed) return;
      closed = true;
      await server.close();
    },
  };
}
