#!/usr/bin/env node
// Makes sure redis-server is on PATH before `npm start` and `npm test`: installs it with apt-get when this
// machine allows it (as root, or with password-less sudo), saying so; otherwise stops with the exact
// command to run.
import { spawnSync } from 'node:child_process';

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

if (!has('redis-server')) {
  const root = process.getuid?.() === 0;
  const sudo = !root && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  if (has('apt-get') && (root || sudo)) {
    const prefix = sudo ? ['sudo', '-n'] : [];
    const run = (...args) => {
      const [cmd, ...rest] = [...prefix, 'apt-get', ...args];
      return spawnSync(cmd, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
    };
    console.error(`ternmail: redis-server is not installed; installing it with: ${[...prefix, 'apt-get install -y redis-server'].join(' ')}`);
    // A fresh machine may have no package lists yet: update and try again.
    if (!run('install', '-y', '-qq', 'redis-server') && !(run('update', '-qq') && run('install', '-y', '-qq', 'redis-server'))) {
      console.error('ternmail: installing redis-server failed. Install it yourself, then run this again:\n  sudo apt-get update && sudo apt-get install -y redis-server');
      process.exit(1);
    }
  } else {
    const how = has('apt-get') ? 'sudo apt-get install -y redis-server' : 'install Redis 6 or newer so that `redis-server` is on PATH';
    console.error(`ternmail: redis-server is not installed. Install it first:\n  ${how}`);
    process.exit(1);
  }
}
