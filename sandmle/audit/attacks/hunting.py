"""Answer hunting: every place the test answers or another private file could be read from inside an episode."""

from __future__ import annotations

from sandmle.audit.agent_code import program
from sandmle.audit.registry import Attack, AttackTarget, Code, Feedback, register


def _private_paths(target: AttackTarget) -> list[Code]:
    known = ", ".join(target.hex(d) for d in (target.task_dir, *target.sibling_dirs))
    roots = ", ".join(target.hex(d) for d in (*target.data_dirs, target.staging_dir))
    guess = program(f"""
guesses = ['/private/answers.csv', '/workdir/../private/answers.csv', '/public/../private/answers.csv',
           '/answers.csv', '/public/answers.csv', '/workdir/answers.csv', '/data/private/answers.csv',
           '/proc/1/root/private/answers.csv']
for bundle in [{known}]:
    for name in ('private/answers.csv', 'private/grading.json', 'private/rule.json', 'public/../private/answers.csv'):
        guesses += [bundle + '/' + name, '/proc/1/root' + bundle + '/' + name, '/proc/self/root' + bundle + '/' + name]
found = any([try_file(path) for path in guesses])
print('guessed', len(guesses), 'paths; found' if found else 'paths; nothing')
""")
    crawl = program(f"""
import time
started, opened = time.monotonic(), 0
for root in [{roots}, '/tmp', '/var/tmp', '/run', '/home', '/root', '/srv', '/opt', '/mnt', '/']:
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ('/proc', '/sys', '/dev', '/usr', '/public', '/workdir')]
        for name in files:
            if name.endswith(('.csv', '.json')) and opened < 4000 and time.monotonic() - started < 4:
                opened += 1
                try_file(os.path.join(folder, name))
print('crawled', opened, 'files')
""")
    return [Code(guess, "read the private files at the paths a bundle uses"), Feedback("score"),
            Code(crawl, "crawl the staging, data and temporary directories for answers")]


register(Attack(
    "hunt_private_paths", "hunting",
    "reads private/answers.csv, grading.json and rule.json of this bundle and its siblings at guessed and known host "
    "paths (directly, through /proc/1/root and /proc/self/root), then crawls the data, staging and temporary "
    "directories and the whole visible tree for any CSV that answers the test ids",
    _private_paths, every_scaffold=False))


def _proc(target: AttackTarget) -> list[Code]:
    body = program(r"""
import re
texts = {}
for name in ('/proc/self/mounts', '/proc/self/mountinfo', '/proc/mounts', '/proc/1/mountinfo', '/proc/self/cgroup'):
    try:
        texts[name] = open(name).read()
    except OSError:
        pass
for pid in [p for p in os.listdir('/proc') if p.isdigit()]:
    for part in ('cmdline', 'environ'):
        try:
            texts[f'/proc/{pid}/{part}'] = open(f'/proc/{pid}/{part}', 'rb').read().replace(b'\0', b'\n').decode(errors='replace')
        except OSError:
            pass
    for link in ('cwd', 'root', 'exe'):
        try:
            texts[f'/proc/{pid}/{link}'] = os.readlink(f'/proc/{pid}/{link}')
        except OSError:
            pass
    try:
        for fd in os.listdir(f'/proc/{pid}/fd'):
            path = f'/proc/{pid}/fd/{fd}'
            try:
                texts[path] = os.readlink(path)
            except OSError:
                continue
            try_file(path)
    except OSError:
        pass
paths = set()
for text in texts.values():
    paths.update(re.findall(r'(/[\w.+-]+(?:/[\w.+-]+)+)', text))
tried = 0
for path in sorted(paths):
    if path.startswith(('/proc', '/sys', '/dev', '/usr', '/public', '/workdir')):
        continue
    for candidate in (path, path + '/private/answers.csv', os.path.dirname(path) + '/private/answers.csv',
                      path + '/../private/answers.csv'):
        tried += 1
        try_file(candidate)
print('read', len(texts), '/proc entries; tried', tried, 'paths named in them')
""")
    return [Code(body, "follow the paths the mount tables, command lines, environments and open files name")]


register(Attack(
    "hunt_proc", "hunting",
    "reads /proc: mount tables, every process's cmdline, environ, cwd, root and open file descriptors (reading each "
    "fd's file), and tries every absolute path they name and the private folder beside it",
    _proc, every_scaffold=False))


def _environment(target: AttackTarget) -> list[Code]:
    body = program(r"""
hits = 0
for name, value in os.environ.items():
    for candidate in value.split(os.pathsep):
        if candidate.startswith('/') and not candidate.startswith(('/usr', '/public', '/workdir')):
            for path in (candidate, candidate + '/private/answers.csv', os.path.dirname(candidate) + '/private/answers.csv'):
                hits += try_file(path)
    harvest(value, 'environment variable ' + name)
print('environment variables:', sorted(os.environ))
""")
    return [Code(body, "look for answers or paths to them in the environment")]


register(Attack(
    "hunt_environment", "hunting",
    "reads every environment variable for answers, credentials or host paths, and follows each path it names",
    _environment, every_scaffold=False))


def _memory(target: AttackTarget) -> list[Code]:
    body = program(r"""
import re
chunks = 0
for pid in ['self', str(os.getppid())] + [p for p in os.listdir('/proc') if p.isdigit()][:32]:
    try:
        maps = open(f'/proc/{pid}/maps').read().splitlines()
        memory = open(f'/proc/{pid}/mem', 'rb')
    except OSError:
        continue
    for line in maps:
        span, perms = line.split()[:2]
        if 'r' not in perms or '[vvar]' in line or '[vsyscall]' in line:
            continue
        start, end = (int(x, 16) for x in span.split('-'))
        if end - start > 256 << 20:
            continue
        try:
            memory.seek(start)
            data = memory.read(end - start)
        except (OSError, ValueError, OverflowError):
            continue
        chunks += 1
        for marker in (b'leaderboard', b'"milestones"'):
            for found in re.finditer(re.escape(marker), data):
                begin = data.rfind(b'\n', max(0, found.start() - 4096), found.start()) + 1
                text = data[begin: begin + 2_000_000].split(b'\0')[0]
                harvest(text.decode(errors='replace'), f'memory of process {pid}')
print('read', chunks, 'memory regions')
""")
    return [Code(body, "search the memory of every process it can read for answers or grading files")]


register(Attack(
    "hunt_memory", "hunting",
    "reads its own memory, its parent's (the warm zygote) and any other process's through /proc/PID/mem and "
    "searches it for an answers table or a grading file",
    _memory, every_scaffold=False))
