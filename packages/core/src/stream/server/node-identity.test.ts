import type { PeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { decodeWatchRequest, encodeWatchRequest } from '../codec/envelope.js';
import { ProtoWriter } from '../codec/wire/writer.js';
import { certificateNodeNames, nodeIdentityProblem } from './node-identity.js';

/** The fields of Node's `PeerCertificate` the check reads. */
const cert = (cn: unknown, san?: string) =>
  ({ subject: { CN: cn }, ...(san !== undefined ? { subjectaltname: san } : {}) }) as unknown as PeerCertificate;

describe('certificateNodeNames', () => {
  it.each<[string, PeerCertificate | undefined, string[]]>([
    ['no certificate', undefined, []],
    ["a kubelet's CN", cert('system:node:worker-1.example'), ['worker-1.example']],
    ['DNS SANs that are node names', cert('agent', 'DNS:node-a, DNS:node-a.zone'), ['node-a', 'node-a.zone']],
    ['CN and SAN naming the same node once', cert('system:node:node-a', 'DNS:node-a'), ['node-a']],
    ['IP and URI SANs', cert('agent', 'IP Address:198.18.0.1, URI:spiffe://cluster/node-a'), []],
    ['a quoted SAN (Node quotes entries holding a comma)', cert('agent', 'DNS:"node-a,DNS:node-b"'), []],
    ['names the API server would refuse', cert('system:node:Node_A', 'DNS:-a, DNS:a..b, DNS:' + 'a'.repeat(254)), []],
    ['a CN of another kind', cert('system:nodes'), []],
    ['several CNs (ambiguous)', cert(['system:node:node-a', 'system:node:node-b']), []],
    ['an empty name after the prefix', cert('system:node:'), []],
  ])('%s', (_, c, names) => {
    expect(certificateNodeNames(c)).toEqual(names);
  });
});

describe('nodeIdentityProblem', () => {
  it('allows only a node the certificate names, and only when the request names one', () => {
    expect(nodeIdentityProblem(['node-a', 'node-b'], 'node-b')).toBeUndefined();
    expect(nodeIdentityProblem(['node-a'], 'node-c')).toBe('the request names a node the client certificate does not');
    expect(nodeIdentityProblem(['node-a'], '')).toBe('the request names no node');
    expect(nodeIdentityProblem([], 'node-a')).toBe('the client certificate names no node');
  });
});

describe('Watch request node_name (field 3): wire compatibility', () => {
  it('round-trips, and a request without it (an older client) decodes with an empty name', () => {
    const token = { instanceId: 'core', revision: 7 };
    expect(decodeWatchRequest(encodeWatchRequest(token, 'node-a'))).toEqual({ token, nodeName: 'node-a' });
    expect(decodeWatchRequest(encodeWatchRequest(token))).toEqual({ token, nodeName: '' });
    expect(decodeWatchRequest(encodeWatchRequest(undefined, 'node-a'))).toEqual({
      token: undefined,
      nodeName: 'node-a',
    });
  });

  it('an older server skips the field: the first two fields come first and unchanged', () => {
    const token = { instanceId: 'core', revision: 7 };
    const withName = encodeWatchRequest(token, 'node-a');
    const without = encodeWatchRequest(token);
    expect(withName.subarray(0, without.length)).toEqual(without);
    // A newer client's field 9 (unknown here) is skipped too.
    const w = new ProtoWriter(64);
    w.string(1, 'core');
    w.string(9, 'later');
    w.string(3, 'node-a');
    expect(decodeWatchRequest(w.finish())).toEqual({ token: { instanceId: 'core', revision: 0 }, nodeName: 'node-a' });
  });
});
