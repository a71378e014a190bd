/**
 * Loaded into a voxform process with `node --import` by tests that stop `voxform emulator traffic`
 * while it makes its calls. It says on stderr, once each: `generating traffic` at the first sort of
 * a Float64Array (how the generator orders an agent's call times; nothing else in voxform sorts
 * one), and `saving the data file` when the emulator's account is made into its data file's text
 * (JSON.stringify given an object with `call_logs` and `shared_configs`): a test sees whether a run
 * stopped while it generated went on to save.
 */
const said = new Set();
const say = (line) => {
  if (said.has(line)) return;
  said.add(line);
  process.stderr.write(`${line}\n`);
};

const sort = Float64Array.prototype.sort;
Float64Array.prototype.sort = function announcedSort(...args) {
  say('generating traffic');
  return sort.apply(this, args);
};

const stringify = JSON.stringify;
JSON.stringify = function announcedStringify(value, ...rest) {
  if (value !== null && typeof value === 'object' && 'call_logs' in value && 'shared_configs' in value) say('saving the data file');
  return stringify.call(JSON, value, ...rest);
};
