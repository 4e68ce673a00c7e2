import { createHash } from 'node:crypto';

/**
 * The default design of every rendered website: one stylesheet built only on the theme's variables
 * (src/theme/theme-variables.ts; `chrome.css` sets them per website, inline). Light and dark schemes
 * map the theme's two palettes onto the `--c-*` names the rules use; print drops the chrome.
 *
 * The same for every website, so it is one file (`/_site/design.css?v={hash}`, ≈ 3 KB brotli,
 * cached for a year): pages stay small for the page cache and for visitors who read several pages.
 * Nothing is downloaded at run time beyond it (system font stacks).
 */
const RULES = `
:root{color-scheme:light dark;--c-primary:var(--color-primary);--c-on-primary:var(--color-on-primary);--c-muted:var(--color-secondary);--c-bg:var(--color-background);--c-surface:var(--color-surface);--c-text:var(--color-text);--c-link:var(--color-link);--c-border:var(--color-border);--c-error:#c4212d;--c-mark:#fff2a8}
@media (prefers-color-scheme:dark){:root{--c-primary:var(--color-primary-dark);--c-on-primary:var(--color-on-primary-dark);--c-muted:var(--color-secondary-dark);--c-bg:var(--color-background-dark);--c-surface:var(--color-surface-dark);--c-text:var(--color-text-dark);--c-link:var(--color-link-dark);--c-border:var(--color-border-dark);--c-error:#ff8182;--c-mark:#6c5a00}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;font-family:var(--font-body);font-size:var(--font-size-base);line-height:1.65;color:var(--c-text);background:var(--c-bg);overflow-wrap:break-word}
main{flex:1 0 auto;padding-block:calc(var(--space)*2.5) calc(var(--space)*3)}
img,video,svg{max-width:100%;height:auto}
a{color:var(--c-link);text-underline-offset:.18em;text-decoration-thickness:1px}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--c-primary);outline-offset:2px}
h1,h2,h3,h4,h5,h6{font-family:var(--font-heading);line-height:1.2;margin:1.75em 0 .5em;font-weight:700;letter-spacing:-.01em;text-wrap:balance}
h1{font-size:clamp(2rem,1.5rem + 2.2vw,3.1rem);margin-top:0;letter-spacing:-.025em}
h2{font-size:clamp(1.45rem,1.25rem + .9vw,1.95rem)}
h3{font-size:1.35rem}h4{font-size:1.125rem}h5,h6{font-size:1rem}
p,ul,ol,dl,blockquote,figure,pre,table{margin:0 0 1.25em}
hr{border:0;border-top:1px solid var(--c-border);margin:2.5em 0}
code,kbd,pre{font-family:ui-monospace,"Cascadia Code",Menlo,Consolas,monospace;font-size:.9em}
mark{background:var(--c-mark);color:var(--c-text);padding:0 .15em;border-radius:3px}
table{border-collapse:collapse;width:100%;display:block;overflow-x:auto}
th,td{border-bottom:1px solid var(--c-border);padding:.5rem .75rem;text-align:left;vertical-align:top}
figcaption{font-size:.875rem;color:var(--c-muted);margin-top:.5rem}
.wrap{width:100%;max-width:var(--content-width);margin-inline:auto;padding-inline:calc(var(--space)*1.25)}
.skip-link{position:absolute;left:.75rem;top:-5rem;z-index:20;background:var(--c-primary);color:var(--c-on-primary);padding:.5rem 1rem;border-radius:var(--radius);font-weight:600}
.skip-link:focus{top:.75rem}
.site-header{position:relative;border-top:4px solid var(--c-primary);border-bottom:1px solid var(--c-border);background:var(--c-bg)}
.header-inner{display:flex;align-items:center;gap:var(--space) calc(var(--space)*1.5);min-height:4.25rem;padding-block:.625rem}
.brand{display:flex;align-items:center;gap:.75rem;margin-right:auto;color:var(--c-text);text-decoration:none;font-family:var(--font-heading);font-weight:800;font-size:1.3rem;letter-spacing:-.02em;line-height:1.2}
.brand img{height:2.75rem;width:auto}
.site-nav{display:flex;align-items:center;flex-wrap:wrap;justify-content:flex-end;gap:.5rem calc(var(--space)*1.5)}
.site-nav ul,.drawer ul,.footer-menu ul{list-style:none;margin:0;padding:0}
.site-nav ul{display:flex;flex-wrap:wrap;gap:.25rem calc(var(--space)*1.25)}
.site-nav a,.drawer a{color:var(--c-text);text-decoration:none;font-weight:500;display:inline-block;padding-block:.375rem}
.site-nav a:hover,.drawer a:hover{color:var(--c-link);text-decoration:underline}
.site-menu a[aria-current=page]{box-shadow:inset 0 -2px var(--c-primary)}
.site-menu li{position:relative}
.site-nav .site-menu ul ul{display:none;position:absolute;left:-.75rem;top:100%;z-index:10;min-width:12rem;flex-direction:column;gap:0;padding:.5rem .75rem;background:var(--c-bg);border:1px solid var(--c-border);border-radius:var(--radius);box-shadow:0 8px 24px rgb(0 0 0/.12)}
.site-nav .site-menu li:hover>ul,.site-nav .site-menu li:focus-within>ul{display:flex}
.account-nav a{color:var(--c-muted);font-size:.9375rem}
.site-search{display:flex;align-items:center;gap:.375rem}
.site-search input{width:11rem;padding:.375rem .625rem}
.site-search button{padding:.375rem .875rem}
.nav-drawer{display:none}
.nav-drawer summary{list-style:none;cursor:pointer;display:inline-flex;align-items:center;gap:.625rem;padding:.5rem .875rem;border:1px solid var(--c-border);border-radius:var(--radius);font-weight:600;user-select:none}
.nav-drawer summary::-webkit-details-marker{display:none}
.nav-drawer summary::before{content:"";width:1rem;height:2px;background:currentColor;box-shadow:0 -5px currentColor,0 5px currentColor}
.nav-drawer[open] summary{background:var(--c-surface)}
.drawer{position:absolute;left:0;right:0;top:100%;z-index:10;display:grid;gap:var(--space);padding:var(--space) calc(var(--space)*1.25) calc(var(--space)*1.5);background:var(--c-bg);border-bottom:1px solid var(--c-border);box-shadow:0 12px 24px rgb(0 0 0/.1)}
.drawer ul ul{padding-left:1rem}
.drawer .site-search input{flex:1;width:auto;max-width:none}
.drawer .account-nav ul,.drawer .views{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem}
@media (max-width:56rem){.site-nav{display:none}.nav-drawer{display:block}}
.site-footer{flex-shrink:0;background:var(--c-surface);border-top:1px solid var(--c-border);color:var(--c-muted);font-size:.9375rem}
.footer-inner{display:grid;gap:var(--space) calc(var(--space)*2.5);grid-template-columns:repeat(auto-fit,minmax(min(100%,15rem),1fr));padding-block:calc(var(--space)*2.5) calc(var(--space)*1.5)}
.site-footer a{color:var(--c-text)}
.footer-name{font-family:var(--font-heading);font-weight:800;font-size:1.125rem;color:var(--c-text);margin:0 0 .25rem}
.footer-block>:last-child,.footer-brand>:last-child{margin-bottom:0}
.footer-menu ul{display:flex;flex-direction:column;gap:.375rem}
.footer-meta{grid-column:1/-1;margin:0;padding-top:var(--space);border-top:1px solid var(--c-border);font-size:.875rem}
.prose{max-width:var(--measure);margin-inline:auto}
.prose img{border-radius:var(--radius)}
.prose blockquote{margin-inline:0;padding:.25rem 0 .25rem 1.25rem;border-left:4px solid var(--c-primary);font-size:1.1em;font-style:italic}
.prose pre{background:var(--c-surface);border:1px solid var(--c-border);padding:var(--space);border-radius:var(--radius);overflow-x:auto;line-height:1.5}
.prose :not(pre)>code{background:var(--c-surface);padding:.1em .35em;border-radius:4px}
.prose li+li{margin-top:.25em}
.hero{padding-block:calc(var(--space)*1.5) calc(var(--space)*2.5)}
.hero+section{border-top:1px solid var(--c-border);padding-top:calc(var(--space)*.5)}
.hero h1{font-size:clamp(2.25rem,1.6rem + 3vw,3.75rem);max-width:22ch;margin-bottom:.35em}
.tagline{font-size:clamp(1.125rem,1rem + .5vw,1.375rem);color:var(--c-muted);max-width:var(--measure);margin:0}
.hero .prose{margin:calc(var(--space)*1.5) 0 0}
.section-head{display:flex;align-items:baseline;justify-content:space-between;gap:var(--space);margin:calc(var(--space)*3) 0 calc(var(--space)*1.25)}
.section-head h2{margin:0}
.page-head{margin-bottom:calc(var(--space)*2)}
.page-head .intro{color:var(--c-muted);font-size:1.125rem;max-width:var(--measure)}
.meta{color:var(--c-muted);font-size:.875rem;margin:0}
.cards{list-style:none;margin:0;padding:0;display:grid;gap:calc(var(--space)*1.5);grid-template-columns:repeat(auto-fill,minmax(min(100%,19rem),1fr))}
.card{position:relative;height:100%;display:flex;flex-direction:column;background:var(--c-surface);border:1px solid var(--c-border);border-radius:var(--radius);overflow:hidden;transition:border-color .15s}
.card:hover{border-color:var(--c-primary)}
.card:focus-within{outline:3px solid var(--c-primary);outline-offset:2px}
.card-media{margin:0;aspect-ratio:16/9;background:var(--c-border);overflow:hidden}
.card-media img{display:block;width:100%;height:100%;object-fit:cover}
.card-body{flex:1;display:flex;flex-direction:column;gap:.5rem;padding:var(--space) calc(var(--space)*1.25) calc(var(--space)*1.25)}
.card h2,.card h3{font-size:1.25rem;margin:0;letter-spacing:-.01em}
.card h2 a,.card h3 a{color:var(--c-text);text-decoration:none}
.card h2 a::after,.card h3 a::after{content:"";position:absolute;inset:0}
.card h2 a:focus-visible,.card h3 a:focus-visible{outline:none}
.card p{margin:0}
@media (min-width:48rem){.cards-lead>li:first-child{grid-column:1/-1}.cards-lead>li:first-child .card{display:grid;grid-template-columns:3fr 2fr}.cards-lead>li:first-child .card-media{aspect-ratio:auto;min-height:18rem}.cards-lead>li:first-child .card-body{justify-content:center;padding:calc(var(--space)*2)}.cards-lead>li:first-child h2{font-size:clamp(1.5rem,1.2rem + 1vw,2.1rem)}}
.subnav{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:0 0 calc(var(--space)*2)}
.chips{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
.chips a,.subnav a{display:inline-block;padding:.25rem .875rem;border:1px solid var(--c-border);border-radius:999px;background:var(--c-surface);color:var(--c-text);text-decoration:none;font-size:.875rem}
.chips a:hover,.subnav a:hover{border-color:var(--c-primary)}
.post-head{max-width:var(--measure);margin-inline:auto}
.post-head .lede{font-size:1.2rem;color:var(--c-muted)}
.byline{display:flex;flex-wrap:wrap;gap:.25rem 1rem;color:var(--c-muted);font-size:.9375rem;margin:0 0 var(--space)}
.byline a{color:inherit}
.post-feature{margin:calc(var(--space)*2) auto;max-width:calc(var(--measure) + 18rem)}
.post-feature img{display:block;width:100%;border-radius:var(--radius)}
.post-foot{max-width:var(--measure);margin:calc(var(--space)*2.5) auto 0;padding-top:var(--space);border-top:1px solid var(--c-border)}
.post-foot h2{font-size:.8125rem;text-transform:uppercase;letter-spacing:.08em;color:var(--c-muted);margin:1.5em 0 .625em}
.post-nav{display:grid;grid-template-columns:1fr 1fr;gap:var(--space);margin:calc(var(--space)*2) 0 calc(var(--space)*1.5)}
.post-nav a{display:block;height:100%;padding:var(--space) calc(var(--space)*1.25);border:1px solid var(--c-border);border-radius:var(--radius);color:var(--c-text);text-decoration:none;font-weight:600}
.post-nav a:hover{border-color:var(--c-primary)}
.post-nav span{display:block;font-size:.8125rem;font-weight:400;color:var(--c-muted)}
.post-nav .next{grid-column:2;text-align:right}
.pagination ul{list-style:none;padding:0;display:flex;justify-content:space-between;gap:var(--space);margin:calc(var(--space)*2.5) 0 0}
.pagination li:last-child{margin-left:auto}
label{display:block;font-weight:600;margin-bottom:.25rem}
input:not([type=checkbox]):not([type=radio]):not([type=hidden]),select,textarea{font:inherit;color:var(--c-text);background:var(--c-bg);border:1px solid var(--c-muted);border-radius:var(--radius);padding:.5rem .75rem;width:100%;max-width:30rem}
input[type=checkbox],input[type=radio]{accent-color:var(--c-primary);width:1.125rem;height:1.125rem;vertical-align:-.2em}
button,.button{font:inherit;font-weight:600;line-height:1.4;cursor:pointer;display:inline-block;background:var(--c-primary);color:var(--c-on-primary);border:1px solid transparent;border-radius:var(--radius);padding:.5625rem 1.25rem;text-decoration:none}
.button-quiet{background:transparent;color:var(--c-link);border-color:var(--c-border)}
button:hover,.button:hover{filter:brightness(1.1)}
fieldset{border:1px solid var(--c-border);border-radius:var(--radius);padding:.75rem var(--space) var(--space);margin:0}
legend{font-weight:600;padding:0 .25rem}
fieldset label{display:inline;font-weight:400}
.field{margin-bottom:1.25rem}
.hint{color:var(--c-muted);font-size:.875rem;margin:0 0 .375rem}
.field-error{color:var(--c-error);font-weight:600;margin:0 0 .375rem}
.field-invalid input,.field-invalid select,.field-invalid textarea{border:2px solid var(--c-error)}
.error-summary{border:3px solid var(--c-error);border-radius:var(--radius);padding:var(--space) calc(var(--space)*1.25);margin-bottom:calc(var(--space)*1.5)}
.error-summary h2{margin:0 0 .5rem;font-size:1.25rem}
.error-summary ul{margin:0}
.notice{background:var(--c-surface);border-left:4px solid var(--c-primary);padding:.75rem var(--space);border-radius:var(--radius)}
.panel{max-width:32rem;margin-inline:auto}
.panel form{background:var(--c-surface);border:1px solid var(--c-border);border-radius:var(--radius);padding:calc(var(--space)*1.5);margin-bottom:calc(var(--space)*1.5)}
.panel input:not([type=checkbox]):not([type=radio]),.panel select,.panel textarea{max-width:none}
.account-links{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem}
.account-details{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1.25rem}
.account-details dt{font-weight:600}.account-details dd{margin:0}
.search-page{max-width:var(--measure);margin-inline:auto}
.search-page form{display:flex;gap:.5rem;margin-bottom:calc(var(--space)*1.5)}
.search-page form label{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.search-page input{flex:1}
.search-hits{list-style:none;padding:0}
.search-hits li{padding-block:var(--space);border-bottom:1px solid var(--c-border)}
.search-hits h2{font-size:1.2rem;margin:0 0 .25rem}
.search-hits p{margin:0;color:var(--c-muted)}
.error-page{text-align:center;padding-block:calc(var(--space)*3)}
.error-code{font-family:var(--font-heading);font-size:clamp(4.5rem,3rem + 8vw,8rem);font-weight:800;line-height:1;color:var(--c-primary);margin:0 0 .5rem;letter-spacing:-.04em}
.error-page p{color:var(--c-muted);font-size:1.125rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
@media (prefers-reduced-motion:reduce){*{transition:none!important}}
@media print{:root{--c-bg:#fff;--c-text:#000;--c-muted:#333;--c-link:#000;--c-surface:#fff;--c-border:#999}.skip-link,.site-nav,.nav-drawer,.post-nav,.pagination,.site-search,.footer-menu,.subnav{display:none!important}.site-header{border:0}body{font-size:11pt;display:block}main{padding:0}.prose a[href^="http"]::after{content:" (" attr(href) ")";font-size:.85em;word-break:break-all}.card,.post-feature,figure,pre{break-inside:avoid}h1,h2,h3{break-after:avoid}.site-footer{border-top:1px solid #999;background:none}}
`;

export const DESIGN_CSS = RULES.trim().split('\n').join('');
/** Version of DESIGN_CSS in its URL: a new design is a new URL, so browsers may keep the file for a year. */
export const DESIGN_CSS_VERSION = createHash('sha256').update(DESIGN_CSS).digest('base64url').slice(0, 12);
export const DESIGN_CSS_PATH = `/_site/design.css?v=${DESIGN_CSS_VERSION}`;
