#!/usr/bin/env node
// Makes sure redis-server is on PATH: installs it with apt-get when this machine allows it (saying so),
// or stops with the exact command to run.
import { execFileSync, spawnSync } from 'node:child_process';

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

if (!has('redis-server')) {
  const root = process.getuid?.() === 0;
  if (root && has('apt-get')) {
    console.error('ternmail: redis-server is not installed; installing it with: apt-get install -y redis-server');
    const install = () => spawnSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (install().status !== 0) {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
      if (install().status !== 0) process.exit(1);
    }
  } else {
    console.error('ternmail: redis-server is not installed. Install it first:\n  sudo apt-get install -y redis-server');
    process.exit(1);
  }
}
