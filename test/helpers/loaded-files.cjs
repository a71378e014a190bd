// Preloaded with `node --require` by a test of what a run loads: at exit, the files CommonJS loaded,
// as JSON, into the file VOXFORM_TEST_LOADED_FILES names.
'use strict';
const { writeFileSync } = require('node:fs');

process.on('exit', () => writeFileSync(process.env.VOXFORM_TEST_LOADED_FILES, JSON.stringify(Object.keys(require.cache))));
