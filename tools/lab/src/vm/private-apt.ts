import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, runChecked } from '../netns/run.js';

const DAY_MS = 86_400_000;

/**
 * apt options for a suite the host's sources lack (bookworm-backports): a sources list and lists of
 * our own under the cache, from the host's own Debian mirror (whatever its sources name), verified
 * with Debian's archive keyring. The host's apt configuration and state are never changed.
 */
export async function privateAptOptions(suite: string, cache: string): Promise<string[]> {
  const dir = join(cache, 'apt', suite);
  const lists = join(dir, 'lists');
  const options = [
    '-o',
    `Dir::Etc::SourceList=${join(dir, 'sources.list')}`,
    '-o',
    'Dir::Etc::SourceParts=-',
    '-o',
    `Dir::State::Lists=${lists}`,
    '-o',
    `Dir::Cache=${join(dir, 'cache')}`,
    '-o',
    'APT::Sandbox::User=root',
  ];
  if (fresh(lists)) return options;
  mkdirSync(join(lists, 'partial'), { recursive: true });
  mkdirSync(join(dir, 'cache', 'archives', 'partial'), { recursive: true });
  const mirror = await hostDebianMirror();
  writeFileSync(
    join(dir, 'sources.list'),
    `deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror} ${suite} main\n`,
  );
  await runChecked(['apt-get', ...options, '-q', 'update'], { timeoutMs: 300_000 });
  return options;
}

function fresh(lists: string): boolean {
  if (!existsSync(lists)) return false;
  const packages = readdirSync(lists).filter((name) => name.endsWith('_Packages') || name.includes('_Packages.'));
  return packages.some((name) => Date.now() - statSync(join(lists, name)).mtimeMs < DAY_MS);
}

/** The mirror serving the host's main Debian suite, as apt itself reports it. */
async function hostDebianMirror(): Promise<string> {
  const { stdout } = await run(['apt-get', 'indextargets', '--format', '$(REPO_URI) $(RELEASE)'], {
    timeoutMs: 30_000,
  });
  const release = (await run(['sh', '-c', '. /etc/os-release && echo "$VERSION_CODENAME"'])).stdout.trim();
  const uri = stdout
    .split('\n')
    .map((line) => line.split(' '))
    .find(([, suite]) => suite === release)?.[0];
  if (uri === undefined)
    throw new Error(`no apt source for the host's release ${release || '(unknown)'}: run 'apt-get update'`);
  return uri;
}
