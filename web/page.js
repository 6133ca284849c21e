// Page glue, bundled before the app's code (--pre-js): canvas sizing for high-DPI screens, the
// URL hash both ways, the #a11y text, window.ropeviz for scripts and tests, and clear messages
// when WebGL2 is missing or the app fails.
// The closure compiler minifies this with the app's code: names it must keep are quoted (Module's, which
// Emscripten, the C++ side's EM_JS and the tests use; window.ropeviz's; the fields of JSON from the app).
(function () {
  'use strict';
  if (typeof document === 'undefined') return labWorker();  // a lab worker (below): no page
  // Start-up milestones for the performance test and the browser's profiler: script, webgl, runtime, started, ready.
  function mark(name) { if (window.performance && performance.mark) performance.mark('ropeviz:' + name); }
  mark('script');
  var canvas = document.getElementById('canvas');
  var statusBox = document.getElementById('status');
  var statusText = document.getElementById('status-text');
  var a11y = document.getElementById('a11y');
  var app = 0;           // the C++ Web pointer, set by rvStarted
  var labs = 0;          // its WebLabs (src/platform/web/web_lab.hpp): the lab's workers report there
  var frames = 0;
  var maxSide = 4096;    // the largest backing store side the GPU takes (viewport and renderbuffer)
  var queryMax = 16386;  // > Limits::query_bytes_max + '#': the C++ side rejects it whole with a note
  var resolveReady, rejectReady;
  var ready = new Promise(function (res, rej) { resolveReady = res; rejectReady = rej; });
  ready.catch(function () {});  // a page without WebGL2 still has a settled promise, not an unhandled one

  function show(message) {
    statusBox.classList.remove('hidden');
    statusBox.classList.add('error');
    statusText.textContent = message;
    a11y.textContent = message;
  }
  var failed = false;
  function fail(message) {  // the first failure is the one to tell (no WebGL2 also fails the window later)
    if (failed) return;
    failed = true;
    show(message);
    rejectReady(new Error(message));
  }

  function call(name, ret, types, args) { return Module['ccall'](name, ret, types, args); }
  function decode(text) {  // a hostile or truncated %-escape must not throw
    try { return decodeURIComponent(text); } catch (e) { return text; }
  }

  // Applies a query; a huge one is cut (ccall copies strings to the stack), and so rejected whole.
  function apply(text) {
    return call('rv_web_apply', 'string', ['number', 'string'], [app, text.slice(0, queryMax)]);
  }

  // Backing store = CSS size x devicePixelRatio, so text is crisp; CSS keeps the layout size. A
  // window wider than the GPU allows gets a lower ratio, never a backing store the GPU refuses.
  function resize() {
    if (!app) return;
    var ratio = Math.min(window.devicePixelRatio || 1, maxSide / Math.max(1, window.innerWidth),
                         maxSide / Math.max(1, window.innerHeight));
    var w = Math.max(1, Math.round(window.innerWidth * ratio)), h = Math.max(1, Math.round(window.innerHeight * ratio));
    call('rv_web_set_scale', null, ['number', 'number'], [app, ratio]);
    if (canvas.width !== w || canvas.height !== h) Module['setCanvasSize'](w, h);
  }

  function applyHash() {
    if (!app) return;
    var notes = apply(decode(location.hash));
    if (notes) console.info('ropeviz: ' + notes.trim().split('\n').join('; '));
  }

  window['Module'] = Module;  // a global, as it is without the closure compiler (which renames the app's variable)
  Module['canvas'] = canvas;
  Module['print'] = function (text) { console.log(text); };
  Module['printErr'] = function (text) { console.warn(text); };
  Module['onAbort'] = function (what) { fail('ropeviz stopped: ' + what + '. Reload the page to start again.'); };

  // The canvas's WebGL2 context: web/shell.html made it (with its attributes) before the first paint; this
  // gets it back, learns the GPU's limits, or says there is no WebGL2.
  function checkContext() {
    var gl = canvas.getContext('webgl2');
    mark('webgl');
    if (!gl) {
      fail('This browser cannot run ropeviz: it has no WebGL2. Try a current Chrome, Firefox, Safari or Edge, ' +
           'or enable hardware acceleration.');
      return;
    }
    var dims = gl.getParameter(gl.MAX_VIEWPORT_DIMS);
    maxSide = Math.min(dims[0], dims[1], gl.getParameter(gl.MAX_RENDERBUFFER_SIZE)) || maxSide;
  }
  checkContext();
  Module['onRuntimeInitialized'] = function () { mark('runtime'); };

  // The UI program web/shell.html linked while the app loaded, taken by the app (src/platform/web/web_gl.cpp) if its
  // text for both stages is the same: it gets an id of the app's GL with that id's bookkeeping, once. Else 0: the app
  // links its own (and the browser asks its link status at its first use, behind the page's first composited frames).
  Module['rvPrelinked'] = function (vertex, fragment) {
    var linked = window['rvPrelinked'];
    window['rvPrelinked'] = null;
    if (!linked || linked['vertex'] !== vertex || linked['fragment'] !== fragment) return 0;
    var id = _glCreateProgram(), made = GL.programs[id], program = linked['program'];
    GLctx.deleteProgram(made);
    for (var key in made) program[key] = made[key];
    GL.programs[id] = program;
    mark('prelinked');
    return id;
  };

  // [SECTION] config.json files: dropped on the page, pasted, or picked with "load config.json". The bytes go
  // through the wasm heap (ccall would copy a string onto the small stack); at most one byte past the app's
  // 1 MiB limit for a config.json (kMaxConfigFileBytes, core/models/json_config.hpp) is read, and the file's real size
  // goes along, so a 50 MB file costs nothing.
  var configReadMax = 1024 * 1024 + 1;
  function loadConfigBytes(bytes, name, totalBytes) {
    if (!app) return;
    var ptr = call('rv_web_upload_buffer', 'number', ['number', 'number'], [app, bytes.length]);
    HEAPU8.set(bytes, ptr);
    call('rv_web_load_config', null, ['number', 'string', 'number'], [app, String(name).slice(0, 200), totalBytes]);
  }
  function loadConfigText(text, name) {
    var bytes = new TextEncoder().encode(text);
    loadConfigBytes(bytes.subarray(0, configReadMax), name, bytes.length);
  }
  function loadConfigFile(file) {
    return file.slice(0, configReadMax).arrayBuffer().then(function (buffer) {
      loadConfigBytes(new Uint8Array(buffer), file.name || 'config.json', file.size);
    });
  }
  window.addEventListener('dragover', function (e) { e.preventDefault(); });
  window.addEventListener('drop', function (e) {
    e.preventDefault();
    var files = e.dataTransfer && e.dataTransfer.files;
    if (files && files.length) loadFiles([].slice.call(files)).catch(function () {});
  });

  // [SECTION] Checkpoints (docs/real-weights.md): core asks for byte ranges (rv_web_weights_step answers {want:
  // {file, offset, length}}), this reads them from the user's File objects (slice) or from the Hugging Face Hub (one
  // single-range GET each, no credentials, no HEAD) and hands them over, until core answers done or error. Nothing
  // but the header and the tensors core needs is read; nothing leaves the page until the user presses fetch.
  var indexReadMax = 8 * 1024 * 1024;  // kMaxJsonBytes: an index larger than that is refused by core anyway
  var tokenizerReadMax = 32 * 1024 * 1024;  // kMaxTokenizerBytes (app/state/loaded_tokenizer.hpp)
  var weightsRun = null;               // the read in progress: {controller}; one at a time
  function upload(bytes) {
    var ptr = call('rv_web_upload_buffer', 'number', ['number', 'number'], [app, bytes.length]);
    HEAPU8.set(bytes, ptr);
  }
  function isCheckpoint(files) {
    return files.some(function (f) { return /\.safetensors$|\.index\.json$/.test(f.name); });
  }
  function weightsFail(message) {
    call('rv_web_weights_fail', null, ['number', 'string'], [app, String(message).slice(0, 2000)]);
  }
  // Reads ranges through read(file, offset, length) -> Promise of {bytes: Uint8Array, size: the file's or -1}.
  // Resolves to core's last answer ({done: true} or {error}); a read that fails ends it with its message.
  function runWeights(setup, read) {
    if (setup.config !== undefined) {
      upload(setup.config);
      call('rv_web_weights_text', null, ['number', 'number'], [app, 0]);
    }
    if (setup.index !== undefined) {
      upload(setup.index);
      call('rv_web_weights_text', null, ['number', 'number'], [app, 1]);
    }
    if (setup.tokenizer !== undefined) {
      upload(setup.tokenizer);
      call('rv_web_weights_text', null, ['number', 'number'], [app, 2]);
    }
    call('rv_web_weights_begin', null, ['number', 'string'], [app, JSON.stringify({
      'label': setup.label, 'file': setup.file || '', 'sizes': setup.sizes, 'any_file': !!setup.anyFile,
      'config_name': setup.configName || 'config.json', 'config_bytes': setup.configBytes || 0,
      'tokenizer_bytes': setup.tokenizerBytes || 0 })]);
    function step() {
      var answer = JSON.parse(call('rv_web_weights_step', 'string', ['number'], [app]));
      var want = answer['want'];
      // Installed (the Frequencies in use walk may read on): the score curve's layer 0 reads more rows through the
      // reader later, forward and passkey the whole files.
      if (answer['installed'] || answer['done']) {
        loadedRead = read;
        loadedSetup = setup;
      }
      if (!want) {
        weightsRun = null;
        return Promise.resolve(answer);
      }
      return read(want['file'], want['offset'], want['length']).then(function (got) {
        upload(got.bytes);
        call('rv_web_weights_supply', null, ['number', 'string', 'number', 'number'],
          [app, want['file'], want['offset'], got.size]);
        return step();
      });
    }
    return step().catch(function (e) {
      weightsRun = null;
      weightsFail(e && e.message ? e.message : String(e));
      return { 'error': e && e.message ? e.message : String(e) };
    });
  }
  // The loaded checkpoint's reader, for rows the score curve's layer 0 asks for after the load (rv_js_read_rows).
  var loadedRead = null, loadedSetup = null;
  Module['rvReadRows'] = function (file, offset, length) {
    if (!loadedRead) {
      call('rv_web_rows_fail', null, ['number', 'string'], [app, 'the checkpoint\'s files are gone']);
      return;
    }
    loadedRead(file, offset, length).then(function (got) {
      upload(got.bytes);
      call('rv_web_rows_supply', null, ['number', 'string', 'number'], [app, file, offset]);
    }).catch(function (e) {
      call('rv_web_rows_fail', null, ['number', 'string'],
        [app, String(e && e.message ? e.message : e).slice(0, 2000)]);
    });
  };
  function readText(file, limit) {
    return file.slice(0, limit).arrayBuffer().then(function (b) { return new Uint8Array(b); });
  }
  // Files dropped or picked: each .txt is Run it's text; a checkpoint (a .safetensors, or an index and its shards)
  // loads with the config.json and tokenizer.json among them; without one a tokenizer.json goes to the loaded weights,
  // a Hugging Face side file (tokenizer_config.json, ...) is refused by name, and any other file is a config.json.
  function loadFiles(files) {
    var texts = files.filter(function (f) { return /\.txt$/i.test(f.name || ''); });
    var rest = files.filter(function (f) { return texts.indexOf(f) < 0; });
    texts.forEach(function (f) { loadRunTextFile(f); });
    if (isCheckpoint(rest)) return loadWeightsFiles(rest);
    var config = null;  // the side files' list is app/state/weights.hpp's is_side_file
    rest.forEach(function (f) {
      var name = f.name || '';
      if (/tokenizer\.json$/.test(name)) loadTokenizerFile(f);
      else if (/^(tokenizer_config|generation_config|special_tokens_map|preprocessor_config)\.json$/.test(name))
        call('rv_web_note', null, ['number', 'string'], [app, name + ' is not a model\'s config.json (only a file ' +
          'named config.json is taken with a checkpoint); drop the config.json, or tokenizer.json for the tokens']);
      else config = f;
    });
    return config ? loadConfigFile(config) : Promise.resolve();
  }
  // tokenizer.json for the loaded weights (rv_web_load_tokenizer); the forward worker opens with it from then on.
  function loadTokenizerBytes(bytes, name, size) {
    upload(bytes);
    if (!call('rv_web_load_tokenizer', 'number', ['number', 'string', 'number'], [app, String(name).slice(0, 200),
      size])) return;
    if (loadedSetup) { loadedSetup.tokenizer = bytes; loadedSetup.tokenizerBytes = size; }
    if (infer && infer.worker) infer.worker.terminate();
    infer = null;
  }
  function loadTokenizerFile(file) {
    return readText(file, tokenizerReadMax + 1).then(function (bytes) {
      loadTokenizerBytes(bytes, file.name || 'tokenizer.json', file.size);
    });
  }
  function tokenizeAsk(request, detokenize) {
    if (!app) return Promise.reject(new Error('ropeviz is not running yet: await window.ropeviz.ready'));
    try {
      upload(new TextEncoder().encode(JSON.stringify(request || {})));
    } catch (e) { return Promise.reject(e); }
    var doc = JSON.parse(call('rv_web_tokenize', 'string', ['number', 'number'], [app, detokenize]));
    return doc['error'] ? Promise.reject(new Error(doc['error'])) : Promise.resolve(doc);
  }
  // Run it's text (rv_web_run_text): at most one byte past its 4 MiB limit is read, the real size goes along.
  var runTextReadMax = 4 * 1024 * 1024;  // kMaxRunTextBytes (app/run/run_text.hpp)
  function loadRunText(bytes, name, size) {
    upload(bytes.subarray(0, runTextReadMax + 1));
    call('rv_web_run_text', null, ['number', 'string', 'number'], [app, String(name).slice(0, 200), size]);
  }
  function loadRunTextFile(file) {
    return readText(file, runTextReadMax + 1).then(function (bytes) { loadRunText(bytes, file.name, file.size); });
  }
  // A drop or the picker: a .safetensors, or an index and its shards, with or without a config.json.
  function loadWeightsFiles(files) {
    if (!app) return Promise.reject(new Error('ropeviz is not running yet: await window.ropeviz.ready'));
    if (weightsRun) return Promise.reject(new Error('a checkpoint is being read; press Stop first'));
    var byName = {}, sizes = {}, config = null, index = null, main = null, tokenizer = null;
    files.forEach(function (f) {
      var name = f.name || '';
      if (/\.index\.json$/.test(name)) index = f;
      else if (/tokenizer\.json$/.test(name)) tokenizer = f;
      else if (/\.safetensors$/.test(name)) { byName[name] = f; sizes[name] = f.size; main = main || name; }
      else if (name === 'config.json') config = f;  // not tokenizer_config.json or generation_config.json
    });
    if (!index && !main)
      return Promise.reject(new Error('no .safetensors file or index among ' +
        files.map(function (f) { return f.name; }).join(', ')));
    weightsRun = {};
    return Promise.all([config ? readText(config, configReadMax) : null,
      index ? readText(index, indexReadMax + 1) : null, tokenizer ? readText(tokenizer, tokenizerReadMax + 1) : null])
      .then(function (texts) {
        var label = index ? index.name : main;
        return runWeights({ label: label, file: index ? '' : main, sizes: sizes, config: texts[0] || undefined,
          configName: config && config.name, configBytes: config && config.size, index: texts[1] || undefined,
          tokenizer: texts[2] || undefined, tokenizerBytes: tokenizer && tokenizer.size },
        function (file, offset, length) {
          var f = byName[file];
          if (!f) return Promise.reject(new Error(file + ' was not given: drop or pick it with the index'));
          return f.slice(offset, offset + length).arrayBuffer().then(function (b) {
            return { bytes: new Uint8Array(b), size: f.size };
          });
        });
      }).then(function (answer) {
        if (answer['error']) throw new Error(answer['error']);
        return answer;
      });
  }
  Module['rvOpenWeights'] = function () {
    var input = document.createElement('input');
    input.type = 'file';
    input.multiple = true;
    input.accept = '.safetensors,.json,.txt';
    input.addEventListener('change', function () {
      if (input.files.length) loadFiles([].slice.call(input.files)).catch(function () {});
    });
    input.click();
  };

  // The Hub: https://huggingface.co/<repo>/resolve/main/<file> redirects to a file host under hf.co; each read is one
  // GET with one Range header (CORS-safelisted: no preflight), credentials omitted. A host that ignores Range (200) is
  // read only as far as needed, then the request is aborted. Gated repos (401/403) cannot be read without a token.
  var hubOrigin = 'https://huggingface.co';
  function HubError(message, status) { this.message = message; this.status = status; }
  HubError.prototype = Object.create(Error.prototype);
  // The browser tests' emulation of the Hub on loopback (tests/web/weights.test.mjs), set by a script before the page
  // runs: no link can set it, and only a 127.0.0.1 origin is taken.
  function hubBase() {
    var test = window['ropevizTestHubOrigin'];
    return typeof test === 'string' && /^http:\/\/127\.0\.0\.1:\d+$/.test(test) ? test : hubOrigin;
  }
  // base: another folder's URL to read from the same way (the demo models beside the served page), else the Hub's.
  function hubRead(repo, file, offset, length, signal, base) {
    var url = (base || hubBase() + '/' + repo + '/resolve/main/') + file;
    var end = offset + length;
    return fetch(url, { 'headers': { 'Range': 'bytes=' + offset + '-' + (end - 1) }, 'credentials': 'omit',
      'signal': signal, 'cache': 'no-store' }).then(function (res) {
      if (res.status === 401 || res.status === 403)
        throw new HubError(repo + ' is gated (HTTP ' + res.status + '): the Hub asks for a token this page does not ' +
          'send; download ' + file + ' from huggingface.co and drop the file', res.status);
      if (res.status === 404) throw new HubError(repo + ' has no ' + file + ' on the Hub (HTTP 404)', 404);
      if (res.status === 416) return { bytes: new Uint8Array(0), size: -1 };
      if (res.status !== 206 && res.status !== 200)
        throw new HubError('the Hub answered HTTP ' + res.status + ' for ' + file, res.status);
      var whole = res.status === 200;  // the range was ignored: the body starts at byte 0
      var range = /\/(\d+)\s*$/.exec(res.headers.get('Content-Range') || '');
      var size = range ? Number(range[1])
        : whole && res.headers.get('Content-Length') ? Number(res.headers.get('Content-Length')) : -1;
      var skip = whole ? offset : 0, need = length, parts = [], got = 0, seen = 0;
      var reader = res.body.getReader();
      return (function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return finish();
          var bytes = chunk.value, from = Math.max(0, skip - seen);
          seen += bytes.length;
          if (from < bytes.length) {
            var part = bytes.subarray(from, from + (need - got));
            parts.push(part);
            got += part.length;
          }
          if (call('rv_web_weights_progress', 'number', ['number', 'number'], [app, got])) {
            reader.cancel();
            throw new HubError('stopped', 0);
          }
          if (got >= need) { reader.cancel(); return finish(); }
          return pump();
        });
      })();
      function finish() {
        var out = new Uint8Array(got), at = 0;
        parts.forEach(function (p) { out.set(p, at); at += p.length; });
        return { bytes: out, size: size };
      }
    }, function (e) {
      if (e && e.name === 'AbortError') throw new HubError('stopped', 0);
      throw new HubError('could not reach the Hub for ' + repo + '/' + file + ' (' + (e && e.message || e) + '): a ' +
        'network or CORS failure; download the file and drop it', -1);
    });
  }
  function hubText(repo, file, limit, signal, base) { return hubRead(repo, file, 0, limit, signal, base); }
  function fetchHub(repo, base) {
    if (!app) return Promise.reject(new Error('ropeviz is not running yet: await window.ropeviz.ready'));
    repo = String(repo).trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/.test(repo) || repo.length > 96) {
      var bad = 'fetch: "' + repo.slice(0, 100) + '" is not a Hub repo id (owner/name, e.g. openai-community/gpt2)';
      call('rv_web_note', null, ['number', 'string'], [app, bad]);
      return Promise.reject(new Error(bad));
    }
    if (weightsRun) return Promise.reject(new Error('a checkpoint is being read; press Stop first'));
    var controller = new AbortController();
    weightsRun = { controller: controller };
    var label = repo + (base ? ' (demo)' : ' (Hub)');
    var read = function (file, offset, length) { return hubRead(repo, file, offset, length, controller.signal, base); };
    var optional = function (p) { return p.catch(function (e) { if (e.status === 404) return null; throw e; }); };
    return optional(hubText(repo, 'config.json', configReadMax, controller.signal, base)).then(function (config) {
      return optional(hubText(repo, 'model.safetensors.index.json', indexReadMax + 1, controller.signal, base))
        .then(function (index) {
          // the model's own tokenizer.json, when the repo has one, for its text (a missing one: bytes only)
          return optional(hubText(repo, 'tokenizer.json', tokenizerReadMax + 1, controller.signal, base))
            .then(function (tokenizer) {
              return runWeights({ label: label, file: index ? '' : 'model.safetensors', sizes: {}, anyFile: true,
                config: config ? config.bytes : undefined,
                configBytes: config ? (config.size >= 0 ? config.size : config.bytes.length) : 0,
                index: index ? index.bytes : undefined, tokenizer: tokenizer ? tokenizer.bytes : undefined,
                tokenizerBytes: tokenizer ? (tokenizer.size >= 0 ? tokenizer.size : tokenizer.bytes.length) : 0 },
              read);
            });
        });
    }).catch(function (e) {
      weightsRun = null;
      weightsFail(label + ': ' + e.message);
      return { 'error': label + ': ' + e.message };
    }).then(function (answer) {
      if (answer['error']) throw new Error(answer['error']);
      return answer;
    });
  }
  Module['rvFetchWeights'] = function (repo) { fetchHub(repo).catch(function () {}); };
  // A demo model the served page ships (web/models/<name>, served as models/<name>); the single file from file://
  // cannot fetch, so it says how to open them.
  Module['rvFetchDemo'] = function (name) {
    if (location.protocol === 'file:') {
      call('rv_web_note', null, ['number', 'string'], [app, name + ': this single file cannot read the demo models ' +
        'beside it; open models/' + name + '/model.safetensors with its config.json by "load weights" or a drop']);
      return;
    }
    fetchHub(name, 'models/' + name + '/').catch(function () {});
  };
  // A paste outside a text field: text that looks like a JSON object is a config.json, any other text is Run it's.
  document.addEventListener('paste', function (e) {
    var text = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
    var field = document.activeElement && /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    if (!text || field) return;
    e.preventDefault();
    if (/^\s*\{/.test(text)) return loadConfigText(text, 'pasted config.json');
    var bytes = new TextEncoder().encode(text);
    loadRunText(bytes, 'pasted text', bytes.length);
  });
  Module['rvOpenConfig'] = function () {
    var input = document.createElement('input');
    input.type = 'file';
    input.accept = '.json,application/json';
    input.addEventListener('change', function () { if (input.files.length) loadConfigFile(input.files[0]); });
    input.click();
  };

  // [SECTION] The main controls as real, labelled HTML inputs (#controls, visually hidden until one has the
  // focus): a screen reader or the Tab key reaches them; a change applies like a link (on Enter or when the field
  // is left, as the canvas's fields do); every change of the view writes their values back.
  var controlKeys = [['model', 'model'], ['position', 'position m'],
    ['max_position', 'max_position (learned table rows)'], ['d_head', 'd_head'], ['base', 'base'],
    ['pairing', 'pairing'], ['tab_top', 'top panel'], ['tab_bottom', 'bottom panel']];
  var controls = {};
  function buildControls() {
    var box = document.getElementById('controls');
    controlKeys.forEach(function (entry) {
      var key = entry[0];
      var choices = call('rv_web_choices', 'string', ['number', 'string'], [app, key]);
      var input = document.createElement(choices ? 'select' : 'input');
      if (choices) {
        choices.split(',').forEach(function (choice) {
          var option = document.createElement('option');
          option.value = option.textContent = choice;
          input.appendChild(option);
        });
      } else {
        input.type = 'text';
        input.inputMode = 'decimal';
      }
      input.id = 'control-' + key;
      var label = document.createElement('label');
      label.htmlFor = input.id;
      label.textContent = entry[1];
      input.addEventListener('change', function () { apply(key + '=' + input.value.replace(/[&=]/g, '')); });
      box.appendChild(label);
      box.appendChild(input);
      controls[key] = input;
    });
  }
  function syncControls(hash) {
    hash.split('&').forEach(function (pair) {
      var eq = pair.indexOf('=');
      var input = controls[pair.slice(0, eq)];
      if (input && document.activeElement !== input) input.value = decode(pair.slice(eq + 1));
    });
  }

  // [SECTION] The exercises as an HTML form (#exercises, visually hidden until it has the focus): a screen reader
  // user reads each question, types the answers into labelled fields, presses Check (or Enter) and hears core's
  // verdict; the canvas's exercise panel holds the same answers and verdict. Rebuilt when the questions change (the
  // generated ones follow the settings), keeping what was typed into a question that did not change.
  var exerciseBox = document.getElementById('exercises');
  var exerciseQuestions = '';
  function element(tag, text, id) {
    var e = document.createElement(tag);
    if (text) e.textContent = text;
    if (id) e.id = id;
    return e;
  }
  function question(e) { return e['title'] + '\n' + e['prompt']; }
  function showVerdicts(list) {
    list.forEach(function (e, index) {
      var result = document.getElementById('exercise-' + index + '-result');
      var text = e['verdict'] === 'unanswered' ? '' : e['heading'] + ' ' + e['message'];
      if (result.textContent !== text) result.textContent = text;
      document.getElementById('exercise-' + index + '-show').hidden = !text;
    });
  }
  function buildExercises(list) {
    var typed = {};  // question -> the fields' values
    var focused = exerciseBox.contains(document.activeElement) ? document.activeElement.id : '';
    exerciseBox.querySelectorAll('form').forEach(function (form) {
      typed[form.getAttribute('data-question')] = [].map.call(form.querySelectorAll('input'), function (i) {
        return i.value;
      });
    });
    exerciseBox.textContent = '';
    exerciseBox.appendChild(element('h2', 'Exercises'));
    list.forEach(function (e, index) {
      var id = 'exercise-' + index;
      var form = element('form', '', id);
      form.setAttribute('data-question', question(e));
      form.setAttribute('aria-labelledby', id + '-title');
      form.appendChild(element('h3', e['title'], id + '-title'));
      form.appendChild(element('p', e['prompt']));
      var kept = typed[question(e)];
      e['parts'].forEach(function (part, k) {
        var choices = part['choices'].length ? ' (' + part['choices'].join(' or ') + ')' : '';
        var label = element('label', part['label'] + choices);
        var input = element('input', '', id + '-answer-' + k);
        input.type = 'text';
        input.maxLength = 200;
        input.autocomplete = 'off';
        input.value = kept ? kept[k] : part['answer'];
        label.htmlFor = input.id;
        form.appendChild(label);
        form.appendChild(input);
      });
      var check = element('button', 'Check', id + '-check');
      var hint = element('button', 'Hint', id + '-hint');
      var hintText = element('p', e['hint'], id + '-hint-text');
      var show = element('button', 'Show me', id + '-show');
      var result = element('p', '', id + '-result');
      hint.type = show.type = 'button';
      hint.setAttribute('aria-expanded', 'false');
      hint.setAttribute('aria-controls', hintText.id);
      hintText.hidden = true;
      result.setAttribute('role', 'status');  // read out when a check changes it
      hint.addEventListener('click', function () {
        hintText.hidden = !hintText.hidden;
        hint.setAttribute('aria-expanded', String(!hintText.hidden));
      });
      show.addEventListener('click', function () {
        call('rv_web_exercise_show', null, ['number', 'number'], [app, index]);
      });
      form.addEventListener('submit', function (event) {
        event.preventDefault();
        var answers = [].map.call(form.querySelectorAll('input'), function (i) { return i.value.replace(/\n/g, ' '); });
        var reply = call('rv_web_exercise_check', 'string', ['number', 'number', 'string'],
          [app, index, answers.join('\n')]);
        if (reply) showVerdicts(JSON.parse(reply));
      });
      [check, hint, show, hintText, result].forEach(function (child) { form.appendChild(child); });
      exerciseBox.appendChild(form);
    });
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  }
  function syncExercises() {
    if (!app) return;
    var list = JSON.parse(call('rv_web_exercises', 'string', ['number'], [app]));
    var questions = list.map(question).join('\n\n');
    var changed = questions !== exerciseQuestions;
    exerciseQuestions = questions;  // first: a rebuild gives the focus back, and a focus syncs again
    if (changed) buildExercises(list);
    showVerdicts(list);
  }
  exerciseBox.addEventListener('focusin', function (event) {  // a check made on the canvas shows here too
    if (!exerciseBox.contains(event.relatedTarget)) syncExercises();
  });

  Module['rvStarted'] = function (ptr, labsPtr) {
    mark('started');
    app = ptr;
    labs = labsPtr;
    resize();
    applyHash();
  };
  Module['rvFatal'] = function (message) { fail('ropeviz could not start: ' + message); };
  // The text layer speaks once changes settle: a slider drag through 25 positions is one announcement, not 25.
  var a11yTimer = 0;
  var a11yDelay = 400;  // ms without a change
  var shownHash = '';
  // #text-view: the same state as headings and tables (app/text/text_view.cpp, escaped there), replaced as a whole.
  var textView = document.getElementById('text-view');
  function describe(html) { return call('rv_web_describe', 'string', ['number', 'number'], [app, html]); }
  Module['rvStateChanged'] = function (hash) {
    if (decode(location.hash.slice(1)) !== hash) history.replaceState(null, '', '#' + hash);
    shownHash = hash;
    syncControls(hash);
    clearTimeout(a11yTimer);
    a11yTimer = setTimeout(function () {  // the words are made once the changes settle, not at every change
      a11y.textContent = describe(0);
      textView.innerHTML = describe(1);
      syncExercises();
    }, a11yDelay);
  };
  function download(blob, name) {
    var a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
  Module['rvDownload'] = function (name, mime, bytes) { download(new Blob([bytes], { type: mime }), name); };
  // Called right after a frame was drawn: the WebGL drawing buffer still holds it (toBlob and drawImage copy it at
  // once). region (canvas pixels): one panel, copied into a canvas of its own. A download, or window.ropeviz.png's
  // answer when it asked.
  var pictureWanted = null;  // window.ropeviz.png's {resolve, reject}, for the next picture
  var gpuLost = false;       // the WebGL context is lost: no frame, so no picture, until it is restored
  Module['rvSavePicture'] = function (name, region) {
    var source = canvas;
    if (region) {
      source = document.createElement('canvas');
      source.width = Math.max(1, Math.round(region.w));
      source.height = Math.max(1, Math.round(region.h));
      source.getContext('2d').drawImage(canvas, Math.round(region.x), Math.round(region.y), source.width,
        source.height, 0, 0, source.width, source.height);
    }
    var wanted = pictureWanted;
    pictureWanted = null;
    if (wanted) wanted.resolve({ 'name': name, 'width': source.width, 'height': source.height,
      'png': source.toDataURL('image/png') });
    else source.toBlob(function (blob) { if (blob) download(blob, name); }, 'image/png');
  };
  Module['rvCopyLink'] = function (ptr) {
    var note = function (text) { call('rv_web_note', null, ['number', 'string'], [ptr, text]); };
    if (!navigator.clipboard || !navigator.clipboard.writeText) {
      note('this browser offers no clipboard here: copy the link from the address bar');
      return;
    }
    navigator.clipboard.writeText(location.href).then(
      function () { note('copied the link to this view'); },
      function (e) {
        note('the browser refused the clipboard (' + e.message + '): copy the link from the address bar');
      });
  };
  // [SECTION] The lab's runs (one per method and seed) in Web Workers (docs/window-ropeviz.md): the
  // engine (src/platform/web/web_lab.cpp) asks for `count` of them (0: one less than the cores, at least one), each
  // a new instance of this same code and wasm: the served page's own ropeviz.js by its URL (the policy's worker-src
  // 'self'), the single file's inlined code as a blob: URL (worker-src blob:); the wasm is compiled here once and
  // handed to each. A worker trains one run at a time and posts its progress, what it has so far and the finished
  // run (labWorker below); a frame a second shows them (each also costs the workers CPU: with a software GPU about
  // 0.15 s of a core). Stop terminates the workers.
  var appScript = document.currentScript;  // the app's script element: its src, or (single file) its code
  var labWasm = null, labURL = null;
  function workerModule() {  // the page's wasm, compiled once for every worker
    var bytes = Module['wasmBinary'];
    return labWasm = labWasm || (bytes ? WebAssembly.compile(bytes) : fetch(appScript.src.replace(/js$/, 'wasm'))
      .then(function (r) { return r.arrayBuffer(); }).then(WebAssembly.compile));
  }
  function workerURL() {
    return labURL = labURL || appScript.src ||
      URL.createObjectURL(new Blob([appScript.textContent], { type: 'text/javascript' }));
  }
  var labPool = null;  // {id, workers, next, done, timer}
  function labStop() {
    if (!labPool) return;
    labPool.workers.forEach(function (w) { w.terminate(); });
    clearInterval(labPool.timer);
    labPool = null;
  }
  function labFailed(pool, message) {
    if (labPool !== pool) return;
    labStop();
    call('rv_web_lab_failed', null, ['number', 'number', 'string'], [labs, pool.id, String(message).slice(0, 500)]);
  }
  // A run's progress as a worker posted it after a slice, with the run so far (now and then) or finished (with its
  // times and tokens and, for a first seed, its weights), through the heap, not ccall's stack copy (a long run's JSON
  // is large); rv_web_lab_run reads it.
  function labRun(pool, d) {
    var json = new TextEncoder().encode(d.run || ''), weights = d.weights || new Uint8Array(0),
      stats = d.stats || [0, 0, 0];
    var at = call('rv_web_lab_buffer', 'number', [], [labs, json.length + weights.length]);
    HEAPU8.set(json, at);
    HEAPU8.set(weights, at + json.length);
    call('rv_web_lab_run', null, [], [labs, pool.id, d.index, json.length, d.progress, stats[0], stats[1], stats[2]]);
  }
  Module['rvLabWorkers'] = function (id, flags, runs, count) {
    labStop();
    var pool = labPool = { id: id, workers: [], next: 0, done: 0,
      timer: setInterval(function () { call('rv_web_request_frame', null, [], [app]); }, 1000) };
    var give = function (w) {
      if (pool.next >= runs.length) return w.terminate();
      var i = pool.next++;
      w.postMessage({ flags: flags, method: runs[i][0], seed: runs[i][1], index: i });
    };
    workerModule().then(function (module) {
      var n = Math.min(runs.length, count || Math.max(1, (navigator.hardwareConcurrency || 2) - 1));
      for (var k = 0; k < n && labPool === pool; k++) {
        var w = new Worker(workerURL());
        w.onmessage = function (e) {
          var d = e.data;
          if (labPool !== pool) return;
          if (d.error) return labFailed(pool, d.error);
          labRun(pool, d);
          if (d.progress < 1 || labPool !== pool) return;
          if (++pool.done === runs.length) return labStop();
          give(this);
        };
        w.onerror = function (e) { labFailed(pool, 'a worker failed: ' + e.message); };
        w.postMessage(module);
        pool.workers.push(w);
        give(w);
      }
    }).catch(function (e) { labFailed(pool, 'the workers could not start: ' + e.message); });
  };
  Module['rvLabWorkersStop'] = function (id) { if (labPool && labPool.id === id) labStop(); };

  // [SECTION] forward and passkey (docs/window-ropeviz.md) in a Web Worker: the loaded checkpoint's files, read whole
  // through the load's own reader, and its config.json, index and tokenizer.json go to one worker (an instance of this
  // code and wasm, as the lab's), which opens them with core's reader and answers each request with the CLI's code
  // (rv_infer_worker_*, src/platform/web/web_infer.cpp). A new load gets a new worker.
  var infer = null;  // {serial: the weights', worker, opened: Promise, asks: {id: resolve}, next}
  function inferPost(s, message) {
    return new Promise(function (resolve) {
      message.id = s.next++;
      s.asks[message.id] = resolve;
      s.worker.postMessage(message);
    });
  }
  // The loaded files, each read to the end of its last tensor (rv_web_weights_extent): [[name, bytes], ...].
  function inferFiles(extent, read) {
    return Promise.all(Object.keys(extent['files']).map(function (name) {
      return read(name, 0, extent['files'][name]).then(function (got) { return [name, got.bytes]; });
    }));
  }
  // A worker opened with the loaded checkpoint (`files`: a Promise of inferFiles' pairs): {worker, asks, next, opened}.
  // A worker that fails answers what it was asked with {failed: why}.
  function inferWorker(files) {
    var setup = loadedSetup;
    var s = { worker: null, asks: {}, next: 1 };
    s.opened = Promise.all([workerModule(), files]).then(function (got) {
      var w = s.worker = new Worker(workerURL());
      w.onmessage = function (e) {
        var resolve = s.asks[e.data.id];
        delete s.asks[e.data.id];
        if (resolve) resolve(e.data);
      };
      w.onerror = function (e) {
        var asks = s.asks;
        s.asks = {};
        Object.keys(asks).forEach(function (id) { asks[id]({ failed: 'the worker failed: ' + (e.message || e) }); });
      };
      w.postMessage(got[0]);
      var named = {};
      got[1].forEach(function (pair) { named[pair[0]] = pair[1]; });
      return inferPost(s, { model: { file: setup.file || '', files: named, config: setup.config,
        index: setup.index, tokenizer: setup.tokenizer } });
    }).then(function (d) {
      if (d.failed) throw new Error(d.failed);
      if (d.opened) throw new Error(JSON.parse(d.opened)['error']['message']);
    });
    return s;
  }
  function inferStart(extent) {
    if (infer && infer.worker) infer.worker.terminate();
    var s = infer = inferWorker(inferFiles(extent, loadedRead));
    s.serial = extent['serial'];
    s.opened.catch(function () {
      if (infer !== s) return;
      if (s.worker) s.worker.terminate();
      infer = null;  // the next request tries again
    });
    return s;
  }
  // Run it's passes (rv_js_run_jobs, src/platform/web/web_main.cpp): the files read once, a pool of workers opened
  // with them (one less than the cores, at most 4), one job at a time each: a pass or a passkey cell of the settings
  // (run_settings_numbers) on the text's token ids (Float64Arrays), every answer handed to the app as it lands
  // (rv_web_run_result); Stop ends the workers (rv_js_run_stop).
  var runPool = null;  // {generation, workers}
  function runResult(generation, index, count, type, message) {
    call('rv_web_run_result', null, ['number', 'number', 'number', 'number', 'string', 'string'],
      [app, generation, index, count, type, String(message).slice(0, 2000)]);
  }
  Module['rvRunStop'] = function (generation) {
    if (!runPool || runPool.generation !== generation) return;
    runPool.workers.forEach(function (s) { if (s.worker) s.worker.terminate(); });
    runPool = null;
  };
  Module['rvRunJobs'] = function (generation, settings, jobs, ids) {
    if (runPool) Module['rvRunStop'](runPool.generation);
    var pool = runPool = { generation: generation, workers: [] };
    var extent = JSON.parse(call('rv_web_weights_extent', 'string', ['number'], [app]));
    if (!extent || !loadedSetup || extent['label'] !== loadedSetup.label)
      return runResult(generation, -1, -1, 'BadRequest', 'Run it reads the checkpoint\'s files again in its ' +
        'workers: these weights did not come from files the page can read');
    var files = inferFiles(extent, loadedRead), next = 0, failed = false;
    var fail = function (message) {
      if (runPool !== pool || failed) return;
      failed = true;
      runResult(generation, -1, -1, 'WorkerError', message);
    };
    var count = Math.min(jobs, Math.max(1, (navigator.hardwareConcurrency || 2) - 1), 4);
    for (var k = 0; k < count; k++) (function (s) {
      pool.workers.push(s);
      var give = function () {
        if (runPool !== pool || next >= jobs) return;
        var index = next++;
        inferPost(s, { run: index, settings: settings, ids: ids }).then(function (d) {
          if (runPool !== pool) return;
          if (d.failed) return fail(d.failed);
          if (d.numbers) {
            upload(new Uint8Array(d.numbers.buffer));
            runResult(generation, index, d.numbers.length, '', '');
          } else {
            runResult(generation, index, -1, d.type, d.message);
          }
          give();
        });
      };
      s.opened.then(give, function (e) { fail('a worker could not open the checkpoint: ' + e.message); });
    })(inferWorker(files));
  };
  // The request as `ropeviz-cli eval` takes it (no file: the model is the loaded checkpoint); resolves to the same
  // document, rejects with its error's message (and the error's type as .type).
  function inferAsk(op, request) {
    if (!app) return Promise.reject(new Error('ropeviz is not running yet: await window.ropeviz.ready'));
    var extent = JSON.parse(call('rv_web_weights_extent', 'string', ['number'], [app]));
    if (!extent || !loadedSetup || extent['label'] !== loadedSetup.label)
      return Promise.reject(new Error(op + ' runs the loaded checkpoint: load one first (loadWeights, fetchWeights, ' +
        'a demo model in Run it, a drop)'));
    var text;
    try {
      var r = {};
      Object.keys(request || {}).forEach(function (k) { r[k] = request[k]; });
      r['op'] = op;
      text = JSON.stringify(r);
    } catch (e) { return Promise.reject(e); }
    var s = infer && infer.serial === extent['serial'] ? infer : inferStart(extent);
    return s.opened.then(function () { return inferPost(s, { request: text }); }).then(function (d) {
      if (d.failed) throw new Error(d.failed);
      var doc = JSON.parse(d.answer);
      if (doc['error']) {
        var e = new Error(doc['error']['message']);
        e['type'] = doc['error']['type'];
        throw e;
      }
      return doc;
    });
  }

  // [SECTION] Frames on demand: at most one frame is requested at a time; the app draws it and says whether
  // another is due (it animates, input is held, or the last event's frames are not all drawn). Events wake it
  // from C++ (GLFW's callbacks, the calls below that change the state): an idle page draws nothing. The first
  // frame after a pause is drawn in a task of its own right after the event's (not in a microtask, which would
  // run between two listeners of one event: GLFW's touch handling and the touch-to-mouse one below), not an
  // animation frame later; the frames that follow come one per animation frame.
  var frameRequested = false;
  var lastFrameAt = -Infinity;
  var frameInterval = 20;  // ms: a frame drawn longer ago than this is a pause
  function drawFrame() {
    frameRequested = false;
    lastFrameAt = performance.now();
    if (call('rv_web_frame', 'number', ['number'], [app])) Module['rvRequestFrame']();
  }
  Module['rvRequestFrame'] = function () {
    if (frameRequested || !app) return;
    frameRequested = true;
    // The first frame right after main returns, in the same task: not after the load event and a rendering update
    // of the page, which with a software GPU also queue work in the GPU process that the first frame waits behind.
    if (!frames) Promise.resolve().then(drawFrame);
    // after all the event's listeners
    else if (performance.now() - lastFrameAt > frameInterval) setTimeout(drawFrame, 0);
    else requestAnimationFrame(drawFrame);
  };
  Module['rvFrameDrawn'] = function (n) {
    frames = n;
    if (n === 1) {
      mark('ready');
      statusBox.classList.add('hidden');
      // Built with the first frame, not before it: the page changes once, in one frame of the compositor.
      buildControls();
      syncControls(shownHash);
      resolveReady();
    }
  };

  var lostPicture = 'the graphics context is lost: no picture until the browser restores it';
  // A lost GPU (driver reset, too many contexts): say so and draw nothing until the browser gives
  // the context back; then the app rebuilds every GL object. preventDefault() allows the restore.
  canvas.addEventListener('webglcontextlost', function (e) {
    e.preventDefault();
    show('The graphics context was lost. ropeviz carries on when the browser restores it.');
    gpuLost = true;
    if (pictureWanted) pictureWanted.reject(new Error(lostPicture));
    pictureWanted = null;
    if (app) call('rv_web_gl_lost', null, ['number', 'number'], [app, 1]);
  });
  canvas.addEventListener('webglcontextrestored', function () {
    gpuLost = false;
    if (app) call('rv_web_gl_lost', null, ['number', 'number'], [app, 0]);
    statusBox.classList.add('hidden');
  });

  window.addEventListener('resize', resize);
  (function watchRatio() {  // devicePixelRatio changes with zoom and when moving between screens
    if (!window.matchMedia) return;
    var mq = window.matchMedia('(resolution: ' + (window.devicePixelRatio || 1) + 'dppx)');
    var onChange = function () { resize(); watchRatio(); };
    if (mq.addEventListener) mq.addEventListener('change', onChange, { once: true });
  })();
  window.addEventListener('hashchange', applyHash);
  // The mouse wheel: one notch scrolls a few lines, in the direction pages scroll. Emscripten 3.1.6's GLFW hands
  // ImGui the raw delta (+100 for one notch down in Chromium's pixel mode, with the opposite sign to ImGui's), which
  // jumped to an end of every scrolling area. Caught on the way down (capture at the window), so the port's own
  // listeners on the canvas never see a wheel event; the notch size follows deltaMode (pixels, lines, pages).
  var notch = [100, 3, 1];
  window.addEventListener('wheel', function (e) {
    if (e.target !== canvas || !app) return;
    e.preventDefault();
    e.stopPropagation();
    var unit = notch[e.deltaMode] || notch[0];
    call('rv_web_wheel', null, ['number', 'number', 'number'], [app, -e.deltaX / unit, -e.deltaY / unit]);
  }, { capture: true, passive: false });
  ['mousewheel', 'DOMMouseScroll'].forEach(function (legacy) {  // older spellings of the same notch
    window.addEventListener(legacy, function (e) {
      if (e.target !== canvas) return;
      e.preventDefault();
      e.stopPropagation();
    }, { capture: true, passive: false });
  });

  // Emscripten's GLFW listens for mouseup on the canvas only: a release elsewhere would leave a drag stuck.
  window.addEventListener('mouseup', function (e) {
    if (e.target === canvas) return;
    canvas.dispatchEvent(new MouseEvent('mouseup', e));
  }, true);

  // Touch: Emscripten 3.1.6's GLFW knows only the mouse, and a browser turns a tap (not a drag) into mouse
  // events. One finger becomes the mouse: down where it lands, moves with it (a drag on the position slider),
  // up where it lifts; two frames later the pointer leaves the canvas, so no tooltip stays stuck.
  // A mostly vertical swipe scrolls the area under the finger instead, as far as the finger travels (unless the
  // finger holds a scrollbar): the press is released off the canvas first, so it clicks nothing, and the pointer
  // comes back over the area once a frame has seen the release.
  var finger = null;
  var swipe = null;  // {x0, y0, y, mode: 'pending' | 'drag' | 'scroll', back: the frame the pointer may return}
  var away = { clientX: -1, clientY: -1 };
  function asMouse(type, touch, held) {
    canvas.dispatchEvent(new MouseEvent(type, { clientX: touch.clientX, clientY: touch.clientY, button: 0,
      buttons: held === false || type === 'mouseup' ? 0 : 1, bubbles: true, cancelable: true }));
  }
  function ownTouch(e) {
    for (var i = 0; i < e.changedTouches.length; i++)
      if (e.changedTouches[i].identifier === finger) return e.changedTouches[i];
    return null;
  }
  canvas.addEventListener('touchstart', function (e) {
    e.preventDefault();  // no emulated mouse events on top of ours
    if (finger !== null) return;
    var t = e.changedTouches[0];
    finger = t.identifier;
    swipe = { x0: t.clientX, y0: t.clientY, y: t.clientY, mode: 'pending', back: 0 };
    asMouse('mousemove', t);
    asMouse('mousedown', t);
  }, { passive: false });
  canvas.addEventListener('touchmove', function (e) {
    e.preventDefault();
    var t = ownTouch(e);
    if (!t) return;
    if (swipe.mode === 'pending') {
      var dx = t.clientX - swipe.x0, dy = t.clientY - swipe.y0;
      if (Math.abs(dy) > 12 && Math.abs(dy) > 2 * Math.abs(dx) &&
          call('rv_web_swipe', 'number', ['number', 'number'], [app, 0])) {
        swipe.mode = 'scroll';
        asMouse('mousemove', away);
        asMouse('mouseup', away);
        swipe.back = frames + 1;
        swipe.y = swipe.y0;
      } else if (Math.abs(dx) > 12 || Math.abs(dy) > 12) {
        swipe.mode = 'drag';
      }
    }
    if (swipe.mode !== 'scroll') return asMouse('mousemove', t);
    if (frames < swipe.back) return;  // the travel so far is kept in swipe.y and scrolls once the pointer is back
    asMouse('mousemove', t, false);
    call('rv_web_swipe', 'number', ['number', 'number'], [app, t.clientY - swipe.y]);
    swipe.y = t.clientY;
  }, { passive: false });
  function lift(e) {
    var t = ownTouch(e);
    if (!t) return;
    e.preventDefault();
    finger = null;
    if (swipe.mode !== 'scroll') asMouse('mouseup', t);
    swipe = null;
    leaveAfter(frames + 2);
  }
  // The pointer leaves the canvas once two frames have seen the lift (so the press lands where the finger was, however
  // slowly frames come), unless another finger came down meanwhile.
  function leaveAfter(frame) {
    if (finger !== null) return;
    if (frames >= frame) return asMouse('mousemove', away);
    setTimeout(function () { leaveAfter(frame); }, 20);
  }
  // A touch screen has no keys until a text field has the focus: while a canvas field takes typed text after a touch,
  // #soft-keys (an invisible field) holds the focus so the on-screen keyboard opens; what is typed there goes to the
  // canvas as characters (its keypress is kept from GLFW's listener, which would type them twice), a deletion as
  // Backspace. Enter, Tab and Escape arrive as keys as from any keyboard.
  var softKeys = document.getElementById('soft-keys');
  var touched = false;  // the last press was a finger
  var sentinel = ' ';   // kept in the field so a Backspace always has something to delete
  canvas.addEventListener('touchstart', function () { touched = true; }, { passive: true });
  canvas.addEventListener('mousedown', function (e) { if (e.isTrusted) touched = false; });
  // field: 0 none, 1 a number (the digits keyboard), 2 any text (an exercise's answer: letters too).
  Module['rvTextInput'] = function (field) {
    var mode = field === 2 ? 'text' : 'decimal';
    if (field && touched) {
      if (softKeys.getAttribute('inputmode') !== mode && document.activeElement === softKeys) softKeys.blur();
      softKeys.setAttribute('inputmode', mode);  // (blurred first: a focused field keeps the keyboard it opened)
      softKeys.value = sentinel;
      softKeys.focus({ 'preventScroll': true });
    } else if (!field && document.activeElement === softKeys) {
      softKeys.blur();
      canvas.focus({ 'preventScroll': true });
    }
  };
  var keyDeleted = false;  // a real Backspace key went to GLFW already: its edit must not delete twice
  softKeys.addEventListener('keydown', function (e) { keyDeleted = e.key === 'Backspace'; });
  window.addEventListener('keypress', function (e) {
    if (e.target === softKeys) e.stopImmediatePropagation();
  }, true);
  softKeys.addEventListener('input', function (e) {
    if (!app) return;
    if (e.inputType && e.inputType.indexOf('delete') === 0) {
      if (!keyDeleted) call('rv_web_backspace', null, ['number'], [app]);
    } else if (e.data) {
      call('rv_web_text', null, ['number', 'string'], [app, e.data]);
    }
    keyDeleted = false;
    softKeys.value = sentinel;
  });
  canvas.addEventListener('touchend', lift, { passive: false });
  canvas.addEventListener('touchcancel', lift, { passive: false });

  var api = window['ropeviz'] = {
    'ready': ready,
    // Asking also asks for one more frame: a script waiting for frames to pass gets them, an idle page draws none.
    'frames': function () {
      if (app) call('rv_web_request_frame', null, ['number'], [app]);
      return frames;
    },
    'state': function () {
      if (!app) return null;
      var s = JSON.parse(call('rv_web_state', 'string', ['number'], [app]));
      s['memory_bytes'] = HEAPU8.length;  // the wasm heap, bounded by -sMAXIMUM_MEMORY
      return s;
    },
    // Sets parameters as the UI would (same keys, limits and notes as the URL hash); returns state().
    'set': function (partial) {
      if (!app) throw new Error('ropeviz is not running yet: await window.ropeviz.ready');
      if (partial === null || typeof partial !== 'object' || Array.isArray(partial))
        throw new TypeError('set() expects an object such as {position: 100}');
      var pairs = Object.keys(partial).map(function (key) {
        var v = partial[key], t = typeof v;
        // Another type becomes text no parser accepts, e.g. position='(boolean)': a note, value kept.
        var text = t === 'number' || t === 'string' ? String(v)
          : '(' + (v === null ? 'null' : Array.isArray(v) ? 'array' : t) + ')';
        return key.replace(/[&=]/g, '') + '=' + text.replace(/[&=]/g, '');
      });
      apply(pairs.join('&'));
      return api['state']();
    },
    // Opens config.json text as the model, as a dropped file would; returns state() (its notes say what happened).
    'loadConfig': function (text, name) {
      if (!app) throw new Error('ropeviz is not running yet: await window.ropeviz.ready');
      loadConfigText(String(text), name === undefined ? 'config.json' : String(name));
      return api['state']();
    },
    // Opens a checkpoint's File objects (a .safetensors, or an index and its shards, with or without a config.json) as
    // a drop would; resolves when the view shows them, rejects with core's message (the state stays).
    'loadWeights': function (files) {
      return loadWeightsFiles([].slice.call(files || [])).then(function () { return api['state'](); });
    },
    // tokenizer.json text for the loaded checkpoint, as a dropped file would; returns state() (its notes say what
    // happened: refused by name, or loaded, and whether its ids fit the model's vocabulary).
    'loadTokenizer': function (text, name) {
      if (!app) throw new Error('ropeviz is not running yet: await window.ropeviz.ready');
      var bytes = new TextEncoder().encode(String(text));
      loadTokenizerBytes(bytes.subarray(0, tokenizerReadMax + 1), name === undefined ? 'tokenizer.json' : String(name),
        bytes.length);
      return api['state']();
    },
    // The tokenize and detokenize ops of the CLI on the page's own encoder ({text} or {ids}, with "tokenizer": a
    // tokenizer.json's text, or the loaded checkpoint's), resolving to the same documents (tokenize adds encode_ms,
    // the encoder's own time); rejects with the error's message.
    'tokenize': function (request) { return tokenizeAsk(request, 0); },
    'detokenize': function (request) { return tokenizeAsk(request, 1); },
    // The text Run it reads, as a paste would (null: the held-out sample again); returns state().
    'runText': function (text, name) {
      if (!app) throw new Error('ropeviz is not running yet: await window.ropeviz.ready');
      if (text === null) call('rv_web_run_text', null, ['number', 'string', 'number'], [app, '', -1]);
      else {
        var bytes = new TextEncoder().encode(String(text));
        loadRunText(bytes, name === undefined ? 'pasted text' : String(name), bytes.length);
      }
      return api['state']();
    },
    // Reads a Hub repo's checkpoint by range requests, as the fetch button does; resolves or rejects likewise.
    'fetchWeights': function (repo) {
      return fetchHub(repo).then(function () { return api['state'](); });
    },
    // Runs a lab experiment (options: the CLI's flags with underscores, e.g. {task: 'copy', methods: ['rope'],
    // train_len: 8, steps: 300, seed: 1}, and `workers`: how many Web Workers train its runs) in the workers, shown
    // in the Lab panel; resolves to the document `ropeviz-cli lab` prints for the same options. Rejects refused
    // options, and a run stopped or replaced first.
    // The forward pass and the passkey bench on the loaded checkpoint, in a Web Worker: the CLI's forward and passkey
    // requests without "file", resolving to the same documents.
    'forward': function (request) { return inferAsk('forward', request); },
    'passkey': function (request) { return inferAsk('passkey', request); },
    'lab': function (options) {
      if (!app) return Promise.reject(new Error('ropeviz is not running yet: await window.ropeviz.ready'));
      var text;
      try { text = JSON.stringify(options === undefined ? {} : options); } catch (e) { return Promise.reject(e); }
      var error = call('rv_web_lab_start', 'string', ['number', 'string'], [app, String(text)]);
      if (error) return Promise.reject(new Error(error));
      var serial = api['state']()['lab']['serial'];
      return new Promise(function (resolve, reject) {
        (function poll() {
          var lab = api['state']()['lab'];
          if (lab['serial'] !== serial)
            return reject(new Error('the lab run was replaced by another before it finished'));
          if (lab['running']) return setTimeout(poll, 50);
          if (lab['stopped']) return reject(new Error(lab['error'] || 'the lab run was stopped before it finished'));
          resolve(lab['result']);
        })();
      });
    },
    // A picture of one panel (its key, as in #tab=KEY; it is shown first) or, without one, of the whole
    // canvas, at the screen's pixel density: resolves to {name, width, height, png: a data: URL}.
    'png': function (panel) {
      if (!app) return Promise.reject(new Error('ropeviz is not running yet: await window.ropeviz.ready'));
      if (gpuLost) return Promise.reject(new Error(lostPicture));
      var key = panel === undefined || panel === null ? '' : String(panel);
      var shown = function () {
        var s = api['state']();
        return key === '' || s['panel_top'] === key || s['panel_bottom'] === key;
      };
      return new Promise(function (resolve, reject) {
        if (key !== '' && !shown()) {
          var notes = call('rv_web_apply', 'string', ['number', 'string'], [app, 'tab=' + encodeURIComponent(key)]);
          if (notes) return reject(new Error(notes.trim()));
        }
        var tries = 0;
        (function take() {  // ImGui selects a tab a frame after it is asked
          if (!shown()) {
            if (++tries > 20) return reject(new Error('the panel ' + key + ' did not show'));
            api['frames']();
            return setTimeout(take, 20);
          }
          var error = call('rv_web_picture', 'string', ['number', 'string'], [app, key]);
          if (error) return reject(new Error(error));
          pictureWanted = { resolve: resolve, reject: reject };
        })();
      });
    },
    'rect': function (id) {
      return app ? JSON.parse(call('rv_web_rect', 'string', ['number', 'string'], [app, String(id)])) : null;
    },
  };

  // [SECTION] A lab worker (started by the page above, from this same code): its first message is the page's
  // compiled wasm, which becomes this instance (no window, no GL: main returns at once); each next one a run, trained
  // to its end in slices of 100 ms (rv_lab_worker_*, src/platform/web/web_lab.cpp), posting after each its progress,
  // after the first and every fifth the run so far, and at the end the run with its times and, for a method's first
  // seed, its model.
  function labWorker() {
    var c = function (name, ret, args, types) { return Module['ccall'](name, ret, types || [], args); };
    var jobs = [], started = false;
    var work = function () { while (started && jobs.length) run(jobs.shift()); };
    Module['instantiateWasm'] = function (imports, receive) {
      self.onmessage = function (e) {
        self.onmessage = function (e) { jobs.push(e.data); work(); };
        WebAssembly.instantiate(e.data, imports).then(receive, function (err) {
          self.postMessage({ error: 'the wasm did not start in a worker: ' + err.message });
        });
      };
      return {};
    };
    Module['onRuntimeInitialized'] = function () { started = true; setTimeout(work, 0); };
    // forward and passkey: a model's files and texts into named buffers, then requests (inferStart above)
    function put(name, bytes) {
      if (!bytes) return;
      var at = c('rv_infer_worker_buffer', 'number', [name, bytes.length], ['string', 'number']);
      HEAPU8.set(bytes, at);
    }
    function infer(job) {
      if (job.model) {
        var m = job.model;
        Object.keys(m.files).forEach(function (name) { put('file:' + name, m.files[name]); });
        put('config', m.config);
        put('index', m.index);
        put('tokenizer', m.tokenizer);
        return self.postMessage({ id: job.id, opened: c('rv_infer_worker_open', 'string', [m.file], ['string']) });
      }
      if (job.run !== undefined) {  // Run it's job: its settings and the text's tokens, float64 each
        put('settings', new Uint8Array(job.settings.buffer, job.settings.byteOffset, job.settings.byteLength));
        put('ids', new Uint8Array(job.ids.buffer, job.ids.byteOffset, job.ids.byteLength));
        var n = c('rv_infer_worker_run_job', 'number', [job.run], ['number']);
        if (n < 0) {
          var e = c('rv_infer_worker_error', 'string', []).split('\n');
          return self.postMessage({ id: job.id, type: e[0], message: e.slice(1).join('\n') });
        }
        var at = c('rv_infer_worker_numbers', 'number', []);
        var numbers = new Float64Array(HEAPU8.buffer.slice(at, at + 8 * n));
        return self.postMessage({ id: job.id, numbers: numbers }, [numbers.buffer]);
      }
      put('request', new TextEncoder().encode(job.request));
      self.postMessage({ id: job.id, answer: c('rv_infer_worker_answer', 'string', []) });
    }
    function run(job) {
      if (job.id) return infer(job);
      var w = c('rv_lab_worker_start', 'number', [job.flags, job.method, job.seed], ['string', 'string']);
      if (!w) return self.postMessage({ error: 'the run of ' + job.method + ' was refused' });
      var stat = function (k) { return c('rv_lab_worker_stat', 'number', [w, k]); };
      for (var p = 0, slice = 0; p < 1; slice++) {
        p = c('rv_lab_worker_slice', 'number', [w, 100]);
        var m = { index: job.index, progress: p };
        if (p >= 1 || slice % 5 === 0) m.run = c('rv_lab_worker_json', 'string', [w]);
        if (p < 1) { self.postMessage(m); continue; }
        var at = c('rv_lab_worker_weights', 'number', [w]);
        m.weights = HEAPU8.slice(at, at + stat(3));
        m.stats = [stat(0), stat(1), stat(2)];
        self.postMessage(m, [m.weights.buffer]);
      }
      c('rv_lab_worker_free', null, [w]);
    }
  }
})();
