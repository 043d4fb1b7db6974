#!/usr/bin/env node
// The `trawl` bin: a committed, executable shim (git keeps its mode, whereas the compiled
// file is written by tsc without the executable bit) that runs the compiled CLI.
import '../../dist/clients/cli/main.js';
