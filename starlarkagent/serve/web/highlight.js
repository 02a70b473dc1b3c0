// A small Python highlighter for the code of agent steps. It returns DOM
// nodes built with textContent only: the code comes from a model and is
// never parsed as HTML.
'use strict';

(function () {
  const KEYWORDS = new Set(('and as assert async await break class continue def del elif else except ' +
    'finally for from global if import in is lambda nonlocal not or pass raise return try while ' +
    'with yield match case').split(' '));
  const CONSTANTS = new Set(['True', 'False', 'None', 'self', 'cls', 'Ellipsis', 'NotImplemented']);
  const BUILTINS = new Set(('abs all any ascii bin bool bytearray bytes callable chr classmethod ' +
    'complex dict dir divmod enumerate filter float format frozenset getattr globals hasattr hash ' +
    'hex id input int isinstance issubclass iter len list locals map max min next object oct ord ' +
    'pow print property range repr reversed round set setattr slice sorted staticmethod str sum ' +
    'super tuple type vars zip final_answer Exception ValueError TypeError KeyError IndexError ' +
    'ZeroDivisionError RuntimeError AttributeError NameError ImportError StopIteration').split(' '));

  // Token rules, tried in order at each position (sticky regular expressions).
  const RULES = [
    ['comment', /#[^\n]*/y],
    // Strings with an optional prefix (f, r, b, u, rb, fr...); triple quotes may span lines.
    // An unterminated string runs to the end of its line (or of the code, if triple-quoted).
    ['string', /(?:[rRbBuUfF]{1,2})?(?:'''[\s\S]*?(?:'''|$(?![\s\S]))|"""[\s\S]*?(?:"""|$(?![\s\S]))|'(?:\\.|[^'\\\n])*'?|"(?:\\.|[^"\\\n])*"?)/y],
    ['number', /(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/y],
    ['decorator', /@[A-Za-z_][\w.]*/y],
    ['name', /[A-Za-z_\u00c0-\uffff][\w\u00c0-\uffff]*/y],
    ['space', /\s+/y],
    ['op', /[-+*/%=<>!&|^~:.,;()[\]{}]/y],
  ];

  // tokens splits code into [kind, text] pairs; kind '' is plain text.
  function tokens(code) {
    const out = [];
    let i = 0;
    let prevName = ''; // the last keyword or name, to color what follows def and class
    while (i < code.length) {
      let kind = '';
      let text = code[i];
      for (const [k, re] of RULES) {
        re.lastIndex = i;
        const m = re.exec(code);
        if (m && m[0].length > 0) {
          kind = k;
          text = m[0];
          break;
        }
      }
      if (kind === 'name') {
        if (KEYWORDS.has(text)) kind = 'keyword';
        else if (CONSTANTS.has(text)) kind = 'constant';
        else if (prevName === 'def') kind = 'function';
        else if (prevName === 'class') kind = 'class';
        else if (BUILTINS.has(text)) kind = 'builtin';
        else kind = '';
        prevName = text;
      } else if (kind !== 'space') {
        prevName = '';
      }
      if (kind === 'space' || kind === 'op') kind = '';
      const last = out[out.length - 1];
      if (last && last[0] === kind) last[1] += text;
      else out.push([kind, text]);
      i += text.length;
    }
    return out;
  }

  // highlightPython returns a fragment of text nodes and <span class="tok-KIND">.
  function highlightPython(code) {
    const frag = document.createDocumentFragment();
    for (const [kind, text] of tokens(code)) {
      if (!kind) {
        frag.append(document.createTextNode(text));
        continue;
      }
      const span = document.createElement('span');
      span.className = 'tok-' + kind;
      span.textContent = text;
      frag.append(span);
    }
    return frag;
  }

  window.highlightPython = highlightPython;
  window.pythonTokens = tokens;
})();
