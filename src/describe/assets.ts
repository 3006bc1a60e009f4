/** The help pages' stylesheet and script, served from memory (never from the file system). */

export const HELP_CSS = `:root { color-scheme: light dark; --accent: #1d5fa8; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; margin: .5rem 0; overflow-wrap: break-word; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #8884; vertical-align: top; }
pre { overflow-x: auto; padding: .75rem; background: #8881; border: 1px solid #8884; font-size: .85rem; }
code { overflow-wrap: break-word; }
header p { margin-top: 0; opacity: .85; }
form { display: grid; gap: .75rem; max-width: 30rem; }
label { display: grid; gap: .25rem; font-weight: 600; }
input { font: inherit; padding: .4rem; width: 100%; }
button { font: inherit; padding: .5rem 1rem; justify-self: start; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: .5rem; background: #8882; font-size: .85rem; }
.hint { font-weight: normal; font-size: .85rem; opacity: .8; }
@media (max-width: 40rem) {
  table, tbody, tr, td { display: block; }
  thead { display: none; }
  tr { padding: .35rem 0; border-bottom: 1px solid #8884; }
  td { border: 0; padding: .1rem 0; }
}
`;

export const HELP_JS = `'use strict';
// Invokes the operation through HTTP POST and shows the XML answer (or the error) as text.
document.addEventListener('DOMContentLoaded', () => {
  const form = document.getElementById('test-form');
  const out = document.getElementById('test-result');
  if (!form || !out) return;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      if (typeof value === 'string' && value !== '') body.append(name, value);
    }
    out.hidden = false;
    out.textContent = 'Calling…';
    try {
      const response = await fetch(form.action, { method: 'POST', body });
      out.textContent = 'HTTP ' + response.status + '\\n\\n' + (await response.text());
    } catch (error) {
      out.textContent = 'The request failed: ' + error;
    }
  });
});
`;
