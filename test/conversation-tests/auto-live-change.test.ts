import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callService, SECRETS, useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

const BOOKING = '-OKdqbqetEcM4ak369yn';

describe('voxform test --mode auto after the live agent changed a field the manifests leave out', () => {
  it('replay still replays offline; auto runs live and names the field, never its value; an older recording replays and says auto cannot tell', { timeout: 300_000 }, async () => {
    const project = await startProject();
    const args = ['test', 'example/tests/booking.test.yaml'];
    const recordingFile = path.join(project.dir, 'example/tests/booking.recording.json');
    const testFile = path.join(project.dir, 'example/tests/booking.test.yaml');
    await writeFile(testFile, `${await readFile(testFile, 'utf8')}  - name: greets\n    turns: [{ expect: [{ contains: book }] }]\n`);
    const recorded = await project.cliInProcess([...args, '--mode', 'record']);
    expect(recorded.code, `${recorded.stdout}${recorded.stderr}`).toBe(0);
    const recording = await readFile(recordingFile, 'utf8');
    expect(JSON.parse(recording)).toMatchObject({ sent_configs: [{ tests: ['greets', 'offers to book'], key_id: expect.stringMatching(/^hmac-sha256:/) }] });
    for (const secret of Object.values(SECRETS)) expect(recording).not.toContain(secret);

    // Unchanged: auto replays, sending no conversation.
    const sends = () => project.requests.filter((request) => request.method === 'POST').length;
    let before = sends();
    const same = await project.cliInProcess([...args, '--mode', 'auto']);
    expect(same.code, `${same.stdout}${same.stderr}`).toBe(0);
    expect(sends()).toBe(before);
    expect(same.stderr).not.toContain('note: --mode auto');

    // A dashboard change of a field the manifests do not set.
    await callService(project, 'PUT', `/agents/${BOOKING}`, { name: 'Appointment booking', config: { llm: { temperature: 0.87 } } });

    before = project.requests.length;
    const replayed = await project.cliInProcess([...args, '--mode', 'replay']);
    expect(replayed.code, `${replayed.stdout}${replayed.stderr}`).toBe(0);
    expect(project.requests.length).toBe(before); // offline: the service is not even read
    expect(replayed.stderr).not.toContain('note: --mode auto');

    before = sends();
    const auto = await project.cliInProcess([...args, '--mode', 'auto']);
    expect(auto.code, `${auto.stdout}${auto.stderr}`).toBe(0);
    expect(sends()).toBeGreaterThan(before); // ran live
    expect(auto.stderr).toContain('note: --mode auto ran the tests of example/tests/booking.test.yaml against desired live: the configuration sent to its agent changed since example/tests/booking.recording.json was recorded');
    expect(auto.stderr).toContain('at config.llm.temperature;');
    expect(`${auto.stdout}${auto.stderr}`).not.toContain('0.87');
    expect(await readFile(recordingFile, 'utf8')).toBe(recording); // auto writes nothing

    // One test recorded again: its configuration sent is the new one, the other's stays as it was.
    expect((await project.cliInProcess([...args, '--mode', 'record', '--grep', 'greets'])).code).toBe(0);
    const parts = JSON.parse(await readFile(recordingFile, 'utf8')) as { sent_configs: Array<{ tests: string[] }> };
    expect(parts.sent_configs.map((sent) => sent.tests)).toEqual([['greets'], ['offers to book']]);
    before = sends();
    const partly = await project.cliInProcess([...args, '--mode', 'auto', '--grep', 'greets']);
    expect(partly.code).toBe(0);
    expect(sends()).toBe(before);
    expect(partly.stderr).not.toContain('note: --mode auto');
    expect((await project.cliInProcess([...args, '--mode', 'auto'])).stderr).toContain('at config.llm.temperature;');

    // A recording made before recordings kept the configuration sent: replayed as before, and said.
    await project.cliInProcess([...args, '--mode', 'record']);
    const older = JSON.parse(await readFile(recordingFile, 'utf8')) as Record<string, unknown>;
    delete older.sent_configs;
    await writeFile(recordingFile, `${JSON.stringify(older, null, 2)}\n`);
    before = sends();
    const untold = await project.cliInProcess([...args, '--mode', 'auto']);
    expect(untold.code, `${untold.stdout}${untold.stderr}`).toBe(0);
    expect(sends()).toBe(before);
    expect(untold.stderr).toContain('note: --mode auto cannot tell whether the live agent changed since example/tests/booking.recording.json was recorded (it was recorded before recordings kept it): what it covers is replayed as recorded; record again to let auto tell.');

    // Recorded again: auto replays once more.
    await project.cliInProcess([...args, '--mode', 'record']);
    before = sends();
    const again = await project.cliInProcess([...args, '--mode', 'auto']);
    expect(again.code).toBe(0);
    expect(sends()).toBe(before);
    expect(again.stderr).not.toContain('note: --mode auto');
  });
});
