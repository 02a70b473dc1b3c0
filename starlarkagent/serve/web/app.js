// The page of star-agent serve: start a run, watch it live, cancel it,
// browse past runs. The API is described in ../API.md.
//
// Everything the server sends (tasks, model output, printed text, errors,
// tool results) is untrusted: it reaches the page through textContent and
// text nodes only, never as HTML.
'use strict';

(function () {
  const TOKEN_KEY = 'star-agent.token';
  const FINAL = new Set(['success', 'max_steps', 'budget_exceeded', 'error', 'cancelled', 'interrupted']);
  const STATE_LABEL = {
    queued: 'Queued', running: 'Running', awaiting_approval: 'Awaiting approval', success: 'Success', max_steps: 'Max steps',
    budget_exceeded: 'Budget spent', error: 'Error', cancelled: 'Cancelled', interrupted: 'Interrupted', loading: 'Loading',
  };
  const PAGE_SIZE = 30;

  // A second line of defence: the page's policy (index.html) runs no
  // script or style that is not one of its files. Say so if it ever bites.
  document.addEventListener('securitypolicyviolation', (ev) => {
    console.error('star-agent: blocked by the content security policy: ' + ev.violatedDirective + ' ' + ev.blockedURI);
  });

  const $ = (id) => document.getElementById(id);
  const main = $('main');

  // el builds an element. Children that are not nodes become text nodes.
  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  // ---------------------------------------------------------------- format

  function fmtDuration(sec) {
    if (typeof sec !== 'number' || !isFinite(sec)) return '';
    if (sec < 0.001) return (sec * 1e6).toFixed(0) + ' µs';
    if (sec < 1) return (sec * 1000).toFixed(sec < 0.01 ? 1 : 0) + ' ms';
    if (sec < 60) return sec.toFixed(sec < 10 ? 2 : 1) + ' s';
    const m = Math.floor(sec / 60);
    const s = Math.round(sec - m * 60);
    if (m < 60) return m + ' min ' + s + ' s';
    return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
  }

  function fmtInt(n) {
    return typeof n === 'number' ? n.toLocaleString('en-US') : '0';
  }

  function fmtAgo(iso) {
    const t = Date.parse(iso);
    if (!isFinite(t)) return '';
    const s = (Date.now() - t) / 1000;
    if (s < 45) return 'just now';
    if (s < 3600) return Math.round(s / 60) + ' min ago';
    if (s < 86400) return Math.round(s / 3600) + ' h ago';
    return new Date(t).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  }

  function fmtTime(iso) {
    const t = Date.parse(iso);
    if (!isFinite(t)) return '';
    return new Date(t).toLocaleString(undefined, {
      month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
  }

  // fmtValue shows a JSON value the way a person reads it: strings as they are.
  function fmtValue(v) {
    if (typeof v === 'string') return v;
    if (v === undefined) return '';
    try {
      return JSON.stringify(v, null, 2);
    } catch (e) {
      return String(v);
    }
  }

  function clip(s, n) {
    s = String(s);
    return s.length > n ? s.slice(0, n - 1) + '…' : s;
  }

  // ----------------------------------------------------------- page errors

  function showError(msg) {
    $('page-error-text').textContent = msg;
    $('page-error').hidden = false;
  }

  function clearError() {
    $('page-error').hidden = true;
    $('page-error-text').textContent = '';
  }

  $('page-error-close').addEventListener('click', clearError);

  // ---------------------------------------------------------------- token

  function token() {
    try {
      return sessionStorage.getItem(TOKEN_KEY) || '';
    } catch (e) {
      return '';
    }
  }

  let tokenWait = null; // a promise while the dialog is open

  // askToken opens the token dialog and resolves once a token is entered.
  function askToken(refused) {
    if (tokenWait) return tokenWait;
    const dialog = $('token-dialog');
    $('token-refused').hidden = !refused;
    $('token-input').value = '';
    tokenWait = new Promise((resolve) => {
      const form = $('token-form');
      const done = (ev) => {
        ev.preventDefault();
        const v = $('token-input').value.trim();
        if (!v) return;
        try {
          sessionStorage.setItem(TOKEN_KEY, v);
        } catch (e) { /* private mode: the token lives until reload */ memToken = v; }
        form.removeEventListener('submit', done);
        dialog.close();
        tokenWait = null;
        resolve(v);
      };
      form.addEventListener('submit', done);
    });
    if (!dialog.open) dialog.showModal();
    $('token-input').focus();
    return tokenWait;
  }
  let memToken = '';
  const currentToken = () => token() || memToken;

  // The dialog cannot be dismissed with Escape: without a token nothing works.
  $('token-dialog').addEventListener('cancel', (ev) => ev.preventDefault());
  $('token-btn').addEventListener('click', () => {
    askToken(false).then(() => {
      refreshRuns();
      route();
    });
  });

  // ------------------------------------------------------------------ API

  class APIError extends Error {
    constructor(status, code, message, retryAfter) {
      super(message);
      this.status = status;
      this.code = code;
      this.retryAfter = retryAfter;
    }
  }

  // api calls the server and returns the decoded JSON answer. On 401 it asks
  // for the token and tries again; other failures throw an APIError whose
  // message is the server's.
  async function api(method, path, body) {
    for (let attempt = 0; ; attempt++) {
      const headers = { Accept: 'application/json' };
      const tok = currentToken();
      if (tok) headers.Authorization = 'Bearer ' + tok;
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      let res;
      try {
        res = await fetch(path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          cache: 'no-store',
        });
      } catch (e) {
        throw new APIError(0, 'network', 'The server cannot be reached (' + e.message + '). Is star-agent serve still running?');
      }
      if (res.status === 401) {
        await askToken(Boolean(tok));
        continue;
      }
      let data = null;
      try {
        data = await res.json();
      } catch (e) { /* not JSON: reported below if the status is an error */ }
      if (!res.ok) {
        const err = (data && data.error) || {};
        throw new APIError(res.status, err.code || 'http_' + res.status,
          typeof err.message === 'string' ? err.message : res.status + ' ' + res.statusText,
          res.headers.get('Retry-After'));
      }
      return data;
    }
  }

  // --------------------------------------------------------------- config

  let config = null;

  async function loadConfig() {
    try {
      config = await api('GET', '/v1/config');
    } catch (e) {
      showError('Reading the server configuration failed: ' + e.message);
      return;
    }
    const info = $('server-info');
    info.replaceChildren();
    if (config && config.model) info.append(el('span', { class: 'chip', title: 'The model the server runs' }, String(config.model)));
    if (config && config.max_steps) {
      info.append(el('span', { class: 'chip subtle' }, 'up to ' + config.max_steps + ' steps'));
      $('max-steps').placeholder = String(config.max_steps);
    }
  }

  // ------------------------------------------------------------- run list

  const runs = new Map(); // id -> summary from GET /v1/runs
  let nextCursor = null;
  let listLoaded = false;

  function upsertRun(r) {
    if (!r || typeof r.id !== 'string') return;
    runs.set(r.id, Object.assign(runs.get(r.id) || {}, r));
  }

  let pollFailures = 0;

  // refreshRuns reads the first page of runs. A background poll (quiet)
  // says nothing of one failure: a dropped connection is retried at the
  // next poll; two in a row are reported, and cleared once it works again.
  async function refreshRuns(quiet) {
    let page;
    try {
      page = await api('GET', '/v1/runs?limit=' + PAGE_SIZE);
    } catch (e) {
      if (!quiet || ++pollFailures >= 2) showError('Listing the runs failed: ' + e.message);
      return;
    }
    if (pollFailures >= 2 && $('page-error-text').textContent.startsWith('Listing the runs failed')) clearError();
    pollFailures = 0;
    for (const r of page.runs || []) upsertRun(r);
    if (!listLoaded) {
      nextCursor = page.next_cursor || null;
      listLoaded = true;
    }
    renderRuns();
  }

  async function moreRuns() {
    if (!nextCursor) return;
    const btn = $('more-runs');
    btn.disabled = true;
    try {
      const page = await api('GET', '/v1/runs?limit=' + PAGE_SIZE + '&cursor=' + encodeURIComponent(nextCursor));
      for (const r of page.runs || []) upsertRun(r);
      nextCursor = page.next_cursor || null;
      renderRuns();
    } catch (e) {
      showError('Listing older runs failed: ' + e.message);
    } finally {
      btn.disabled = false;
    }
  }
  $('more-runs').addEventListener('click', moreRuns);

  function badge(state, extraClass) {
    const s = typeof state === 'string' ? state : 'unknown';
    return el('span', { class: 'badge state-' + s.replace(/[^a-z_]/g, '') + (extraClass ? ' ' + extraClass : '') },
      STATE_LABEL[s] || s);
  }

  function renderRuns() {
    const list = $('run-list');
    const ids = [...runs.keys()].sort().reverse(); // ids sort by creation time
    const items = ids.map((id) => {
      const r = runs.get(id);
      const meta = [fmtAgo(r.created_at)];
      if (typeof r.steps === 'number') meta.push(r.steps + (r.steps === 1 ? ' step' : ' steps'));
      const u = r.token_usage;
      if (u && typeof u.input_tokens === 'number') meta.push(fmtInt(u.input_tokens + (u.output_tokens || 0)) + ' tokens');
      if (typeof r.duration === 'number') meta.push(fmtDuration(r.duration));
      const a = el('a', { class: 'run-item' + (current && current.id === id ? ' active' : ''), href: '#/runs/' + encodeURIComponent(id), 'data-id': id },
        el('span', { class: 'run-item-top' },
          el('span', { class: 'dot state-' + String(r.state).replace(/[^a-z_]/g, ''), title: STATE_LABEL[r.state] || String(r.state) }),
          el('span', { class: 'run-item-task' }, clip(r.task || '(no task)', 200))),
        el('span', { class: 'run-item-meta' }, meta.filter(Boolean).join(' · ')));
      return el('li', null, a);
    });
    list.replaceChildren(...items);
    $('runs-empty').hidden = runs.size > 0 || !listLoaded;
    $('more-runs').hidden = !nextCursor;
  }

  // Keep the list fresh: faster while something is in flight.
  function schedulePoll() {
    const busy = [...runs.values()].some((r) => !FINAL.has(r.state));
    setTimeout(async () => {
      if (!document.hidden && !tokenWait) await refreshRuns(true);
      schedulePoll();
    }, busy ? 3000 : 15000);
  }

  // ------------------------------------------------------------- composer

  function showComposer() {
    closeRun();
    $('run-view').hidden = true;
    $('composer-view').hidden = false;
    document.title = 'star-agent';
    renderRuns();
    $('task').focus();
  }

  function parseImports(s) {
    return s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);
  }

  $('task-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearError();
    const task = $('task').value;
    if (!task.trim()) {
      showError('Write a task first.');
      return;
    }
    const body = { task };
    const ms = $('max-steps').value.trim();
    if (ms) body.max_steps = Number(ms);
    const imports = parseImports($('imports').value);
    if (imports.length) body.imports = imports;
    const args = $('args').value.trim();
    if (args) {
      try {
        body.additional_args = JSON.parse(args);
      } catch (e) {
        showError('The additional arguments are not valid JSON: ' + e.message);
        return;
      }
      if (typeof body.additional_args !== 'object' || Array.isArray(body.additional_args) || body.additional_args === null) {
        showError('The additional arguments must be a JSON object, like {"n": 20}.');
        return;
      }
    }
    const btn = $('start');
    btn.disabled = true;
    try {
      const res = await api('POST', '/v1/runs', body);
      upsertRun({ id: res.id, task, state: res.state || 'queued', created_at: new Date().toISOString() });
      $('task').value = '';
      location.hash = '#/runs/' + encodeURIComponent(res.id);
    } catch (e) {
      let msg = 'Starting the run failed: ' + e.message;
      if (e.status === 429 && e.retryAfter) msg += ' (try again in ' + e.retryAfter + ' s)';
      showError(msg);
    } finally {
      btn.disabled = false;
    }
  });

  $('task').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      $('task-form').requestSubmit();
    }
  });

  // --------------------------------------------------------------- run view

  let current = null; // the open run: {id, es, lastEventId, steps, state, ...}

  function closeRun() {
    if (current && current.es) current.es.close();
    current = null;
    $('live').hidden = true;
    $('jump').hidden = true;
  }

  // Auto-scroll: follow the run while the view is at the bottom; stop as
  // soon as the reader scrolls up, and offer a button to follow again.
  // A scroll event may come after more content has arrived, so "not at
  // the bottom" alone does not mean the reader moved: only a position
  // above the one the page scrolled to does.
  let stick = true;
  let autoTop = -1; // where the page last scrolled to by itself
  main.addEventListener('scroll', () => {
    if (main.scrollHeight - main.scrollTop - main.clientHeight < 64) stick = true;
    else if (autoTop < 0 || main.scrollTop < autoTop - 4) stick = false;
    if (stick) $('jump').hidden = true;
  }, { passive: true });
  function toBottom() {
    main.scrollTop = main.scrollHeight;
    autoTop = main.scrollTop;
  }
  let followQueued = false;
  function follow() {
    if (followQueued) return;
    followQueued = true;
    requestAnimationFrame(() => {
      followQueued = false;
      if (!current) return;
      if (stick) toBottom();
      else if (!current.ended) $('jump').hidden = false;
    });
  }
  $('jump').addEventListener('click', () => {
    stick = true;
    toBottom();
    $('jump').hidden = true;
  });

  function setLive(text) {
    if (!current || current.ended) {
      $('live').hidden = true;
      return;
    }
    $('live-text').textContent = text;
    $('live').hidden = false;
  }

  function showBadge(state) {
    const b = badge(state);
    b.id = 'run-state';
    $('run-state').replaceWith(b);
  }

  function setState(state) {
    if (!current) return;
    current.state = state;
    showBadge(state);
    $('cancel').hidden = FINAL.has(state);
    upsertRun({ id: current.id, state });
    renderRuns();
  }

  function renderStats(r) {
    const dl = $('run-stats');
    const items = [];
    const add = (k, v, title) => {
      if (v === '' || v === undefined) return;
      items.push(el('div', { class: 'stat', title }, el('dt', null, k), el('dd', null, v)));
    };
    add('Started', fmtTime(r.started_at || r.created_at));
    // Steps as the CLI counts them: the action steps.
    const shown = current ? current.steps.size : 0;
    if (shown) add('Steps', String(shown));
    else if (Array.isArray(r.steps)) add('Steps', String(r.steps.filter((s) => s && s.type === 'action').length));
    if (r.token_usage) {
      add('Input tokens', fmtInt(r.token_usage.input_tokens));
      add('Output tokens', fmtInt(r.token_usage.output_tokens));
    }
    const d = r.timing && typeof r.timing.duration === 'number' ? r.timing.duration : r.duration;
    if (typeof d === 'number') add('Duration', fmtDuration(d));
    dl.replaceChildren(...items);
  }

  async function openRun(id) {
    closeRun();
    clearError();
    const cur = {
      id,
      es: null,
      lastEventId: 0,
      steps: new Map(),
      planning: null,
      final: null,
      ended: false,
      state: '',
      info: {},
    };
    current = cur;
    $('composer-view').hidden = true;
    $('run-view').hidden = false;
    $('timeline').replaceChildren();
    $('run-task').textContent = '';
    $('run-args').hidden = true;
    $('run-stats').replaceChildren();
    $('run-id').textContent = id;
    showBadge('loading');
    $('cancel').hidden = true;
    renderRuns();
    closeSidebar();

    let run;
    try {
      run = await api('GET', '/v1/runs/' + encodeURIComponent(id));
    } catch (e) {
      if (current !== cur) return;
      $('run-view').hidden = true;
      showError(e.status === 404 ? 'No such run: ' + e.message : 'Opening the run failed: ' + e.message);
      return;
    }
    if (current !== cur) return;
    cur.info = run;
    document.title = clip(run.task || id, 60) + ' · star-agent';
    $('run-task').textContent = run.task || '';
    showRequest(run.request);
    setState(run.state);
    renderStats(run);
    upsertRun({ id, task: run.task, state: run.state, created_at: run.created_at });
    // A finished run is read from the top; a live one is followed.
    stick = !FINAL.has(run.state);
    main.scrollTop = 0;
    autoTop = -1;
    setLive(run.state === 'queued' ? 'Queued: waiting for a free slot' : 'Waiting for the model…');
    connect(cur);
  }

  // connect opens the event stream. EventSource cannot send headers, so the
  // token goes in ?access_token= (see API.md); reconnections resume after
  // the last event seen (the browser sends Last-Event-ID).
  function connect(cur) {
    const q = new URLSearchParams();
    const tok = currentToken();
    if (tok) q.set('access_token', tok);
    if (cur.lastEventId) q.set('last_event_id', String(cur.lastEventId));
    const qs = q.toString();
    const es = new EventSource('/v1/runs/' + encodeURIComponent(cur.id) + '/events' + (qs ? '?' + qs : ''));
    cur.es = es;
    const on = (type, fn) => es.addEventListener(type, (ev) => {
      // The stream's own failures are plain Events of type "error" too;
      // only MessageEvents carry the run's events.
      if (current !== cur || !(ev instanceof MessageEvent)) return;
      const n = Number(ev.lastEventId);
      if (n && n <= cur.lastEventId) return; // seen before a reconnection
      if (n) cur.lastEventId = n;
      let data;
      try {
        data = JSON.parse(ev.data);
      } catch (e) {
        console.warn('star-agent: bad event data', type, e);
        return;
      }
      try {
        fn(cur, data);
      } catch (e) {
        console.error('star-agent: rendering a ' + type + ' event failed', e);
      }
      follow();
    });
    on('state', onState);
    on('task', onTask);
    on('delta', onDelta);
    on('code', onCode);
    on('tool_call', onToolCall);
    on('approval_requested', onApprovalRequested);
    on('approval_decided', onApprovalDecided);
    on('observation', onObservation);
    on('error', onStepError);
    on('step', onStep);
    on('final_answer', onFinalAnswer);
    on('end', onEnd);
    es.onopen = () => {
      if (current === cur) $('run-view').classList.remove('reconnecting');
    };
    es.onerror = (ev) => {
      // A step's "error" event is a MessageEvent, handled above.
      if (ev instanceof MessageEvent || current !== cur || cur.ended) return;
      if (es.readyState === EventSource.CONNECTING) {
        // The browser reconnects by itself.
        $('run-view').classList.add('reconnecting');
        setLive('Connection lost: reconnecting…');
        return;
      }
      // CLOSED: the server refused the stream. Ask it why with a plain call.
      es.close();
      diagnose(cur);
    };
  }

  async function diagnose(cur) {
    try {
      await api('GET', '/v1/runs/' + encodeURIComponent(cur.id)); // asks for the token on 401
    } catch (e) {
      if (current === cur) showError('The run\'s event stream failed: ' + e.message);
      return;
    }
    if (current === cur && !cur.ended) setTimeout(() => {
      if (current === cur && !cur.ended) connect(cur);
    }, 1000);
  }

  // ---------------------------------------------------------- event views

  function onState(cur, d) {
    if (cur.ended) return;
    setState(d.state);
    if (d.state === 'running') setLive('Waiting for the model…');
    else if (d.state === 'awaiting_approval') setLive('Waiting for a decision on a tool call…');
    else if (d.state === 'queued') setLive('Queued: waiting for a free slot');
  }

  function onTask(cur, d) {
    if (typeof d.task === 'string') $('run-task').textContent = d.task;
    showRequest(cur.info.request, d.additional_args);
  }

  // showRequest lists the options the run was started with.
  function showRequest(req, args) {
    req = req && typeof req === 'object' ? req : {};
    args = args || req.additional_args;
    const box = $('run-args');
    const parts = [];
    if (typeof req.max_steps === 'number') parts.push(el('span', { class: 'chip subtle' }, 'max ' + req.max_steps + ' steps'));
    if (Array.isArray(req.imports) && req.imports.length) {
      parts.push(el('span', { class: 'chip subtle' }, 'imports: ' + req.imports.map(String).join(', ')));
    }
    const chips = parts.length ? el('div', { class: 'run-options' }, ...parts) : null;
    const hasArgs = args && typeof args === 'object' && Object.keys(args).length > 0;
    box.replaceChildren(...[chips,
      hasArgs ? el('div', { class: 'label' }, 'Additional arguments') : null,
      hasArgs ? el('pre', null, fmtValue(args)) : null].filter(Boolean));
    box.hidden = !chips && !hasArgs;
  }

  // stepView finds or makes the card of action step n. Its sections are
  // made up front, hidden until filled, so that they keep their order.
  function stepView(cur, n) {
    let v = cur.steps.get(n);
    if (v) return v;
    const meta = el('span', { class: 'step-meta' }, el('span', { class: 'spinner small', 'aria-hidden': 'true' }), 'running');
    const card = el('li', { class: 'card step running', 'data-step': n },
      el('div', { class: 'step-head' },
        el('span', { class: 'step-num' }, 'Step ' + n),
        meta));
    const sec = (cls) => {
      const s = el('div', { class: 'sec ' + cls, hidden: true });
      card.append(s);
      return s;
    };
    v = {
      n, card, meta,
      stream: sec('stream'), thought: sec('thought'), code: sec('code'), tools: sec('tools'),
      approvals: sec('approvals'), output: sec('output'), error: sec('error'),
      streamed: '', hasCode: false, hasOutput: false, hasError: false, toolCount: 0, ended: false,
    };
    cur.steps.set(n, v);
    insertCard(cur, card);
    return v;
  }

  // insertCard keeps the final answer last.
  function insertCard(cur, card) {
    const tl = $('timeline');
    if (cur.final && cur.final.isConnected) tl.insertBefore(card, cur.final);
    else tl.append(card);
  }

  function onDelta(cur, d) {
    if (typeof d.content !== 'string') return;
    if (!d.step) {
      // Planning, or the answer written from memory after max steps.
      if (!cur.planning) {
        cur.planning = planningView(cur);
      }
      cur.planning.streamed += d.content;
      cur.planning.body.textContent = cur.planning.streamed;
      return;
    }
    const v = stepView(cur, d.step);
    if (v.hasCode) return;
    v.streamed += d.content;
    v.stream.hidden = false;
    if (!v.stream.firstChild) v.stream.append(el('div', { class: 'streaming' }));
    v.stream.firstChild.textContent = v.streamed;
    setLive('The model is writing step ' + d.step + '…');
  }

  // planningView is the card of a model call outside the action steps: a
  // plan, or (after the last step) the answer written from memory, which
  // only its end tells apart.
  function planningView(cur) {
    const body = el('div', { class: 'plan-body' });
    const meta = el('span', { class: 'step-meta' }, el('span', { class: 'spinner small', 'aria-hidden': 'true' }), 'thinking');
    const title = el('span', { class: 'step-num' }, cur.steps.size ? 'The model is thinking' : 'Plan');
    const card = el('li', { class: 'card plan running' }, el('div', { class: 'step-head' }, title, meta), body);
    insertCard(cur, card);
    return { card, body, meta, title, streamed: '' };
  }

  // thoughtOf is the model's text before its code block.
  function thoughtOf(modelOutput, hasCode) {
    let out = String(modelOutput || '');
    if (hasCode) {
      for (const open of ['<code>', '```']) {
        const i = out.indexOf(open);
        if (i >= 0) out = out.slice(0, i);
      }
    }
    return out.trim().replace(/^Thought:\s*/, '');
  }

  function setThought(v, text) {
    if (!text) return;
    v.thought.replaceChildren(el('div', { class: 'thought-text' }, text));
    v.thought.hidden = false;
  }

  function codeBlock(code, errLine) {
    const lines = code.replace(/\n+$/, '').split('\n');
    const gutter = el('pre', { class: 'gutter', 'aria-hidden': 'true' });
    lines.forEach((_, i) => {
      gutter.append(el('span', { class: i + 1 === errLine ? 'err-line' : null }, String(i + 1)), '\n');
    });
    const src = el('pre', { class: 'src' }, el('code', null, window.highlightPython(lines.join('\n'))));
    return el('div', { class: 'codeblock' }, gutter, src);
  }

  function setCode(v, code, errLine) {
    if (typeof code !== 'string' || !code) return;
    v.hasCode = true;
    v.codeText = code;
    v.code.replaceChildren(el('div', { class: 'label' }, 'Code'), codeBlock(code, errLine));
    v.code.hidden = false;
    if (v.streamed) {
      setThought(v, thoughtOf(v.streamed, true));
      v.stream.hidden = true;
    }
  }

  function onCode(cur, d) {
    const v = stepView(cur, d.step);
    setCode(v, d.code);
    setLive('Running the code of step ' + d.step + '…');
  }

  function toolRow(c) {
    const args = c.arguments && typeof c.arguments === 'object'
      ? Object.entries(c.arguments).map(([k, val]) => k + '=' + clip(JSON.stringify(val), 120)).join(', ')
      : '';
    const dur = typeof c.duration === 'number' ? c.duration
      : typeof c.duration_ns === 'number' ? c.duration_ns / 1e9 : undefined;
    const failed = typeof c.error === 'string' && c.error !== '';
    return el('li', { class: 'tool' + (failed ? ' failed' : '') },
      el('div', { class: 'tool-call' },
        el('span', { class: 'tool-name' }, String(c.name)),
        el('span', { class: 'tool-args' }, '(' + args + ')'),
        dur !== undefined ? el('span', { class: 'tool-dur' }, fmtDuration(dur)) : null),
      failed ? el('pre', { class: 'tool-result' }, '✗ ' + c.error)
        : c.result !== undefined ? el('pre', { class: 'tool-result' }, '→ ' + clip(fmtValue(c.result), 2000)) : null);
  }

  function ensureToolList(v) {
    if (!v.toolList) {
      v.toolList = el('ul', { class: 'tool-list' });
      v.tools.replaceChildren(el('div', { class: 'label' }, 'Tool calls'), v.toolList);
    }
    v.tools.hidden = false;
    return v.toolList;
  }

  function onToolCall(cur, d) {
    const v = stepView(cur, d.step);
    ensureToolList(v).append(toolRow(d));
    v.toolCount++;
  }

  // An approval request: the call, as Python, with Approve and Deny
  // buttons (and an optional reason), until a decision arrives, here or
  // from elsewhere (the API, another page, the timeout).
  function onApprovalRequested(cur, d) {
    if (typeof d.id !== 'string') return;
    const v = stepView(cur, d.step);
    if (v.approvals.querySelector('[data-approval="' + CSS.escape(d.id) + '"]')) return;
    const reason = el('input', { class: 'approval-reason', type: 'text', placeholder: 'Reason (told to the model when denied)', 'aria-label': 'Reason' });
    const approve = el('button', { class: 'primary-btn approve-btn', type: 'button' }, 'Approve');
    const deny = el('button', { class: 'danger-btn deny-btn', type: 'button' }, 'Deny');
    const status = el('span', { class: 'approval-status' });
    const box = el('div', { class: 'approval pending', 'data-approval': d.id },
      el('div', { class: 'approval-head' }, 'Approval needed' + (d.agent && d.agent !== 'agent' ? ' (' + d.agent + ')' : '')),
      el('pre', { class: 'approval-call' }, String(d.call || d.tool)),
      d.deadline ? el('div', { class: 'approval-deadline' }, 'Decide by ' + fmtTime(d.deadline) + ': after that the call is denied.') : null,
      el('div', { class: 'approval-actions' }, reason, approve, deny, status));
    const send = async (ok) => {
      approve.disabled = deny.disabled = true;
      status.textContent = 'Sending…';
      const body = { approve: ok };
      if (reason.value.trim()) body.reason = reason.value.trim();
      try {
        await api('POST', '/v1/runs/' + encodeURIComponent(cur.id) + '/approvals/' + encodeURIComponent(d.id), body);
        status.textContent = '';
      } catch (e) {
        status.textContent = '';
        approve.disabled = deny.disabled = false;
        if (e.status !== 404 && e.status !== 409) showError('The decision failed: ' + e.message); // decided elsewhere, or the run ended
      }
    };
    approve.addEventListener('click', () => send(true));
    deny.addEventListener('click', () => send(false));
    if (!v.approvals.firstChild) v.approvals.append(el('div', { class: 'label' }, 'Approvals'));
    v.approvals.append(box);
    v.approvals.hidden = false;
    setLive('Waiting for a decision on ' + clip(String(d.call || d.tool), 80));
    follow();
  }

  function onApprovalDecided(cur, d) {
    const box = document.querySelector('#timeline [data-approval="' + CSS.escape(String(d.id)) + '"]');
    if (!box) return;
    box.classList.remove('pending');
    box.classList.add(d.approved ? 'approved' : 'denied');
    const what = d.approved ? (d.arguments ? 'Approved with edited arguments' : 'Approved') : 'Denied';
    const by = d.by ? ' by ' + d.by : '';
    const why = !d.approved && d.reason ? ': ' + d.reason : '';
    box.querySelector('.approval-actions').replaceChildren(el('span', { class: 'approval-outcome' }, what + by + why));
  }

  // setOutput shows what the code printed, splitting the parts the
  // executor labels ("Execution logs:", "Last output from code snippet:").
  function setOutput(v, text) {
    if (typeof text !== 'string' || !text) return;
    v.hasOutput = true;
    const parts = [];
    let rest = text;
    const LOGS = 'Execution logs:\n';
    const LAST = 'Last output from code snippet:\n';
    let logs = null;
    let last = null;
    if (rest.startsWith(LOGS)) {
      rest = rest.slice(LOGS.length);
      const i = rest.indexOf(LAST);
      if (i >= 0) {
        logs = rest.slice(0, i);
        last = rest.slice(i + LAST.length);
      } else {
        logs = rest;
      }
    }
    if (logs === null) {
      parts.push(el('div', { class: 'label' }, 'Output'), el('pre', { class: 'out' }, text.replace(/\n+$/, '')));
    } else {
      logs = logs.replace(/\n+$/, '');
      if (logs) parts.push(el('div', { class: 'label' }, 'Printed'), el('pre', { class: 'out' }, logs));
      // "None" is what a last statement that is not an expression leaves: no news.
      if (last !== null && !['', 'None'].includes(last.replace(/\n+$/, ''))) {
        parts.push(el('div', { class: 'label' }, 'Last value'), el('pre', { class: 'out last' }, last.replace(/\n+$/, '')));
      }
    }
    if (!parts.length) {
      v.hasOutput = false;
      return;
    }
    v.output.replaceChildren(...parts);
    v.output.hidden = false;
  }

  function onObservation(cur, d) {
    setOutput(stepView(cur, d.step), d.text);
  }

  const ERROR_TITLE = {
    parse: 'No code block in the model\'s answer',
    execution: 'Execution error',
    final_answer_check: 'Final answer rejected',
    model: 'Model call failed',
    executor: 'Executor failed',
    interrupted: 'Interrupted',
  };

  function setStepError(v, e) {
    if (!e || typeof e !== 'object') return;
    v.hasError = true;
    const title = [e.type || ERROR_TITLE[e.kind] || String(e.kind || 'Error')];
    if (e.line) title.push('line ' + e.line);
    let msg = String(e.message || '');
    if (e.source) {
      // The source line is shown below: drop its copy from the message.
      msg = msg.replace(/^Code execution failed at line '[\s\S]*?' due to: /, '');
    }
    let body = el('pre', { class: 'error-msg' }, msg);
    if (e.kind === 'parse') {
      // The message is the long reminder the model reads; say it short.
      body = el('details', { class: 'error-more' },
        el('summary', null, 'The model was told to answer with a code block, and tried again.'),
        body);
    }
    const box = el('div', { class: 'error-box' },
      el('div', { class: 'error-title' }, title.join(' · ')),
      body,
      e.source ? el('pre', { class: 'error-src' }, String(e.source)) : null);
    v.error.replaceChildren(box);
    v.error.hidden = false;
    v.card.classList.add('failed');
    if (e.line && v.codeText) {
      v.code.replaceChildren(el('div', { class: 'label' }, 'Code'), codeBlock(v.codeText, e.line));
    }
  }

  function onStepError(cur, d) {
    setStepError(stepView(cur, d.step), d);
  }

  function setStepMeta(v, s) {
    const parts = [];
    const dur = s.timing && typeof s.timing.duration === 'number' ? s.timing.duration : undefined;
    if (dur !== undefined) parts.push(el('span', { class: 'm', title: 'Duration of the step' }, fmtDuration(dur)));
    const u = s.token_usage;
    if (u) {
      parts.push(el('span', { class: 'm', title: 'Input tokens → output tokens of the model call' },
        fmtInt(u.input_tokens) + ' → ' + fmtInt(u.output_tokens) + ' tokens'));
    }
    if (typeof s.engine === 'string' && s.engine) parts.push(el('span', { class: 'm tag' }, s.engine));
    v.meta.replaceChildren(...parts);
  }

  function onStep(cur, s) {
    if (!s || typeof s !== 'object') return;
    if (s.type === 'action') {
      const v = stepView(cur, s.step_number);
      v.ended = true;
      v.card.classList.remove('running');
      setStepMeta(v, s);
      const hasCode = typeof s.code === 'string' && s.code !== '';
      if (!hasCode && s.error && s.error.kind === 'parse') {
        setThought(v, String(s.model_output || '').trim());
      } else {
        setThought(v, thoughtOf(s.model_output, hasCode));
      }
      v.stream.hidden = true;
      if (!v.hasCode && hasCode) setCode(v, s.code, s.error && s.error.line);
      if (Array.isArray(s.tool_calls) && s.tool_calls.length > v.toolCount) {
        ensureToolList(v).replaceChildren(...s.tool_calls.map(toolRow));
        v.toolCount = s.tool_calls.length;
      }
      if (!v.hasOutput) setOutput(v, s.observation);
      if (!v.hasError && s.error) setStepError(v, s.error);
      if (s.is_final_answer) v.card.classList.add('final-step');
      setLive('Waiting for the model…');
    } else if (s.type === 'planning') {
      const p = cur.planning || planningView(cur);
      cur.planning = null;
      p.card.classList.remove('running');
      p.title.textContent = 'Plan';
      // The model's own text; "plan" frames it for the next model call.
      p.body.textContent = String(s.model_output || s.plan || '').replace(/<end_plan>\s*$/, '').trim();
      const parts = [];
      if (s.timing && typeof s.timing.duration === 'number') parts.push(el('span', { class: 'm' }, fmtDuration(s.timing.duration)));
      if (s.token_usage) {
        parts.push(el('span', { class: 'm' }, fmtInt(s.token_usage.input_tokens) + ' → ' + fmtInt(s.token_usage.output_tokens) + ' tokens'));
      }
      p.meta.replaceChildren(...parts);
      setLive('Waiting for the model…');
    } else if (s.type === 'summary') {
      // The older steps condensed to keep the prompt within the context
      // budget: their cards stay; the model reads the summary instead.
      const p = cur.planning || planningView(cur);
      cur.planning = null;
      p.card.classList.remove('running');
      p.card.classList.add('summary');
      p.title.textContent = 'Summary of steps ' + s.first_step + ' to ' + s.last_step;
      p.body.textContent = String(s.summary || '').trim();
      const parts = [];
      if (s.tokens_before) parts.push(el('span', { class: 'm', title: 'Estimated prompt tokens before and after' }, 'prompt ' + fmtInt(s.tokens_before) + ' → ' + fmtInt(s.tokens_after) + ' tokens'));
      p.meta.replaceChildren(...parts);
      setLive('Waiting for the model…');
    } else if (s.type === 'final_answer') {
      if (cur.planning) { // the streamed from-memory answer
        cur.planning.card.remove();
        cur.planning = null;
      }
      // The final_answer event that follows shows the answer: it has
      // the answer's repr, which the step has not.
      cur.fromMemory = Boolean(s.from_memory);
    }
  }

  function onFinalAnswer(cur, d) {
    showFinal(cur, d.output, d.repr, cur.fromMemory);
  }

  // answerText is the final answer as the CLI prints it: a string as it
  // is, any other value as Python's repr, which the server sends beside
  // the output (whose JSON is a wire form: {"$int": "…"} for a big int,
  // 32 for 32.0). None has no repr; a run stored before the repr was sent
  // shows its JSON.
  function answerText(output, repr) {
    if (typeof output === 'string') return output;
    if (typeof repr === 'string' && repr !== '') return repr;
    if (output === null) return 'None';
    return fmtValue(output);
  }

  function showFinal(cur, output, repr, fromMemory) {
    if (cur.final) {
      if (fromMemory && !cur.final.querySelector('.final-note')) {
        cur.final.querySelector('.final-head').append(
          el('span', { class: 'final-note' }, 'written from memory: the step budget ran out'));
      }
      return;
    }
    const text = answerText(output, repr);
    const copy = el('button', { class: 'ghost-btn copy', type: 'button', title: 'Copy the answer' }, 'Copy');
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(text);
        copy.textContent = 'Copied';
      } catch (e) {
        copy.textContent = 'Copy failed';
      }
      setTimeout(() => { copy.textContent = 'Copy'; }, 1500);
    });
    const card = el('li', { class: 'card final-answer' + (typeof output !== 'string' ? ' value' : '') },
      el('div', { class: 'final-head' },
        checkIcon(),
        el('span', { class: 'final-label' }, 'Final answer'),
        fromMemory ? el('span', { class: 'final-note' }, 'written from memory: the step budget ran out') : null,
        el('span', { class: 'spacer' }),
        copy),
      el('div', { class: 'final-body' }, text));
    cur.final = card;
    $('timeline').append(card);
  }

  function checkIcon() {
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('width', '18');
    svg.setAttribute('height', '18');
    svg.setAttribute('aria-hidden', 'true');
    const p = document.createElementNS(ns, 'path');
    p.setAttribute('d', 'M5 12.5l4.5 4.5L19 7.5');
    p.setAttribute('fill', 'none');
    p.setAttribute('stroke', 'currentColor');
    p.setAttribute('stroke-width', '2.5');
    p.setAttribute('stroke-linecap', 'round');
    p.setAttribute('stroke-linejoin', 'round');
    svg.append(p);
    return svg;
  }

  const RUN_END_TITLE = {
    error: 'The run failed',
    cancelled: 'The run was cancelled',
    interrupted: 'The run was interrupted: the server shut down',
  };

  function onEnd(cur, d) {
    cur.ended = true;
    if (cur.es) cur.es.close();
    $('run-view').classList.remove('reconnecting');
    for (const v of cur.steps.values()) {
      if (!v.ended) {
        v.card.classList.remove('running');
        v.meta.replaceChildren(el('span', { class: 'm' }, 'not finished'));
      }
    }
    if (cur.planning) cur.planning.card.classList.remove('running');
    setState(d.state);
    $('live').hidden = true;
    $('jump').hidden = true;
    if ((d.state === 'success' || d.state === 'max_steps') && !cur.final && d.output !== undefined && d.output !== null) {
      showFinal(cur, d.output, d.repr, d.state === 'max_steps');
    } else if (d.state === 'max_steps' && cur.final) {
      showFinal(cur, null, '', true); // adds the note
    }
    if (d.error) {
      const card = el('li', { class: 'card run-error state-' + String(d.state).replace(/[^a-z_]/g, '') },
        el('div', { class: 'error-title' }, RUN_END_TITLE[d.state] || 'The run failed'),
        el('pre', { class: 'error-msg' }, String(d.error)));
      $('timeline').append(card);
    }
    const info = Object.assign({}, cur.info, {
      state: d.state, steps: d.steps, token_usage: d.token_usage, timing: d.timing,
    });
    renderStats(info);
    upsertRun({
      id: cur.id, state: d.state, steps: d.steps, token_usage: d.token_usage,
      duration: d.timing && d.timing.duration,
    });
    renderRuns();
    follow();
  }

  $('cancel').addEventListener('click', async () => {
    if (!current) return;
    const cur = current;
    const btn = $('cancel');
    btn.disabled = true;
    btn.textContent = 'Cancelling…';
    try {
      await api('POST', '/v1/runs/' + encodeURIComponent(cur.id) + '/cancel');
    } catch (e) {
      if (e.status !== 409) showError('Cancelling the run failed: ' + e.message); // 409: it has just ended
    } finally {
      btn.disabled = false;
      btn.textContent = 'Cancel run';
    }
  });

  // --------------------------------------------------------------- layout

  function closeSidebar() {
    document.body.classList.remove('sidebar-open');
    $('scrim').hidden = true;
    $('menu').setAttribute('aria-expanded', 'false');
  }
  $('menu').addEventListener('click', () => {
    const open = !document.body.classList.contains('sidebar-open');
    document.body.classList.toggle('sidebar-open', open);
    $('scrim').hidden = !open;
    $('menu').setAttribute('aria-expanded', String(open));
  });
  $('scrim').addEventListener('click', closeSidebar);

  // ---------------------------------------------------------------- route

  function route() {
    const m = /^#\/runs\/([A-Za-z0-9_-]+)$/.exec(location.hash);
    if (m) {
      if (!current || current.id !== m[1]) openRun(m[1]);
    } else {
      showComposer();
    }
  }
  window.addEventListener('hashchange', route);

  async function start() {
    await loadConfig();
    await refreshRuns();
    route();
    schedulePoll();
  }
  start();
})();
