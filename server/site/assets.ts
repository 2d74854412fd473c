/** The two static files the public pages load (a stylesheet and the embed frame's script): no inline code. */

const SITE_CSS = `:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}
body{margin:0 auto;max-width:48rem;padding:1rem}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:Canvas;padding:.5rem}
header nav a{font-weight:600;text-decoration:none}
a{color:LinkText}a:focus-visible{outline:3px solid Highlight;outline-offset:2px}
ul.events{list-style:none;padding:0}li.event{border-top:1px solid GrayText;padding:.75rem 0}
.dates,.venue,.tz{color:GrayText}
main.embed{border:1px solid GrayText;border-radius:4px;padding:1rem}main.embed h1{font-size:1.25rem;margin:.25rem 0}
.site{font-size:.875rem;margin:0}
dl.contact dt{font-weight:600}dl.contact dd{margin:0 0 .5rem}
`;

// The embed frame is sandboxed without same-origin or top navigation: it reports its height, and asks the
// host page (wp-embed host script in the oEmbed html) to follow a clicked link, with the secret from its hash.
const EMBED_JS = `(function(){
var m=/[#&]\\?secret=([A-Za-z0-9]{10})/.exec(location.hash)||/secret=([A-Za-z0-9]{10})/.exec(location.hash);
if(!m||window.parent===window)return;var s=m[1];
function send(msg,v){window.parent.postMessage({message:msg,value:v,secret:s},'*');}
function h(){send('height',Math.ceil(document.documentElement.getBoundingClientRect().height));}
window.addEventListener('load',h);window.addEventListener('resize',h);
document.addEventListener('click',function(e){var a=e.target&&e.target.closest?e.target.closest('a[href]'):null;if(!a)return;e.preventDefault();send('link',a.href);});
})();
`;

export const ASSETS: Record<string, { type: string; body: string }> = {
  'site.css': { type: 'text/css; charset=utf-8', body: SITE_CSS },
  'embed-frame.js': { type: 'text/javascript; charset=utf-8', body: EMBED_JS },
};
