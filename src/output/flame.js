'use strict';
(function () {
var NS = 'urn:kiln:flamegraph', MATCH = 'rgb(230,0,230)';
var svg, details, matched, searchbtn, icbtn, unzoombtn;
var xpad = 10, usable = 1, cw = 1, fh = 1, inverted = false;
var frames = [], byel = new Map(), root = null;
var zoomed = null, term = null, icase = false, nametype = 'Function:';

function num(e, a) { return parseFloat(e.getAttributeNS(NS, a)); }
function child(e, tag) {
	for (var c = e.firstChild; c; c = c.nextSibling)
		if (c.nodeType === 1 && c.localName === tag)
			return c;
	return null;
}
function frameOf(e) {
	for (; e && e !== svg; e = e.parentNode) {
		var f = byel.get(e);
		if (f)
			return f;
	}
	return null;
}

/* Same rule as the writer: whole code points, ".." when cut. */
function fit(name, w) {
	var c = Math.floor(w / cw);
	if (c < 3)
		return '';
	var cps = Array.from(name);
	if (cps.length <= c)
		return name;
	return cps.slice(0, c - 2).join('') + '..';
}
function place(f, x, w) {
	f.rect.setAttribute('x', x.toFixed(1));
	f.rect.setAttribute('width', w.toFixed(1));
	f.text.setAttribute('x', (x + 3).toFixed(1));
	f.text.textContent = fit(f.name, w);
}
function setClass(e, c) { e.setAttribute('class', c); }

function zoom(z) {
	if (z === root) {
		unzoom();
		return;
	}
	zoomed = z;
	var ze = z.s + z.n, scale = usable / z.n;
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i], fe = f.s + f.n;
		if (f.d < z.d && f.s <= z.s && fe >= ze) {
			place(f, xpad, usable);
			setClass(f.g, 'f parent');
		} else if (f.d >= z.d && f.s >= z.s && fe <= ze) {
			place(f, xpad + (f.s - z.s) * scale, f.n * scale);
			setClass(f.g, 'f');
		} else {
			setClass(f.g, 'f hide');
		}
	}
	setClass(unzoombtn, 'ctl');
	if (term !== null)
		search(term);
}
function unzoom() {
	zoomed = null;
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i];
		f.rect.setAttribute('x', f.ox);
		f.rect.setAttribute('width', f.ow);
		f.text.setAttribute('x', f.tx);
		f.text.textContent = f.label;
		setClass(f.g, 'f');
	}
	setClass(unzoombtn, 'ctl hide');
	if (term !== null)
		search(term);
}

/*
 * Highlight frames whose name matches; "Matched" is the share of the
 * zoomed frame's samples covered by the union of matched frames, so a
 * match nested in another match is not counted twice.
 */
function search(t) {
	var re;
	try {
		re = new RegExp(t, icase ? 'i' : '');
	} catch (err) {
		details.textContent = 'Invalid regular expression: ' + t;
		return;
	}
	term = t;
	var z = zoomed || root, zs = z.s, ze = z.s + z.n;
	var iv = [];
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i];
		if (!re.test(f.name)) {
			f.rect.setAttribute('fill', f.fill);
			continue;
		}
		f.rect.setAttribute('fill', MATCH);
		var a = Math.max(f.s, zs), b = Math.min(f.s + f.n, ze);
		if (b > a)
			iv.push([a, b]);
	}
	iv.sort(function (p, q) { return p[0] - q[0] || q[1] - p[1]; });
	var sum = 0, end = -Infinity;
	for (var j = 0; j < iv.length; j++) {
		var lo = Math.max(iv[j][0], end);
		if (iv[j][1] > lo) {
			sum += iv[j][1] - lo;
			end = iv[j][1];
		}
	}
	matched.textContent = 'Matched: ' + (100 * sum / (ze - zs)).toFixed(1) + '%';
	searchbtn.textContent = 'Reset Search';
}
function clearSearch() {
	term = null;
	for (var i = 0; i < frames.length; i++)
		frames[i].rect.setAttribute('fill', frames[i].fill);
	matched.textContent = '';
	searchbtn.textContent = 'Search';
}
function askSearch() {
	var t = window.prompt('Enter a search term (regexp allowed, eg: ^ext4_)',
			      term === null ? '' : term);
	if (t === null)
		return;
	if (t === '')
		clearSearch();
	else
		search(t);
	updateURL();
}
function setIcase(on) {
	icase = on;
	setClass(icbtn, on ? 'ctl' : 'ctl off');
	if (term !== null)
		search(term);
}

function updateURL() {
	try {
		var p = new URLSearchParams(location.search);
		['x', 'y', 's', 'ic'].forEach(function (k) { p.delete(k); });
		if (zoomed) {
			p.set('x', String(zoomed.s));
			p.set('y', String(zoomed.d));
		}
		if (term !== null)
			p.set('s', term);
		if (icase)
			p.set('ic', '1');
		var q = p.toString();
		var url = location.pathname + (q ? '?' + q : '') + location.hash;
		history.replaceState(null, '', url);
	} catch (err) {
		/* file:// in some browsers: keep working without the URL */
	}
}
function restore() {
	var p;
	try {
		p = new URLSearchParams(location.search);
	} catch (err) {
		return;
	}
	if (p.get('ic') === '1')
		setIcase(true);
	var x = p.get('x'), y = p.get('y');
	if (x !== null && y !== null) {
		var s = Number(x), d = Number(y);
		for (var i = 0; i < frames.length; i++) {
			if (frames[i].s === s && frames[i].d === d) {
				zoom(frames[i]);
				break;
			}
		}
	}
	var st = p.get('s');
	if (st !== null && st !== '')
		search(st);
}

function init() {
	svg = document.documentElement;
	details = document.getElementById('details');
	matched = document.getElementById('matched');
	searchbtn = document.getElementById('search');
	icbtn = document.getElementById('ic');
	unzoombtn = document.getElementById('unzoom');
	var box = document.getElementById('frames');
	if (!details || !box)
		return;
	xpad = num(svg, 'xpad');
	usable = num(svg, 'w');
	cw = num(svg, 'cw');
	fh = num(svg, 'fh');
	inverted = svg.getAttributeNS(NS, 'inv') === '1';
	nametype = svg.getAttributeNS(NS, 'nt') || '';
	for (var g = box.firstChild; g; g = g.nextSibling) {
		if (g.nodeType !== 1 || g.localName !== 'g')
			continue;
		var title = child(g, 'title'), rect = child(g, 'rect'), text = child(g, 'text');
		if (!title || !rect || !text)
			continue;
		var t = title.textContent, k = t.lastIndexOf(' (');
		var f = {
			g: g, title: title, rect: rect, text: text,
			s: num(g, 's'), n: num(g, 'n'), d: 0,
			name: k >= 0 ? t.slice(0, k) : t,
			y: parseFloat(rect.getAttribute('y')),
			ox: rect.getAttribute('x'), ow: rect.getAttribute('width'),
			tx: text.getAttribute('x'), label: text.textContent,
			fill: rect.getAttribute('fill')
		};
		frames.push(f);
		byel.set(g, f);
	}
	if (!frames.length)
		return;
	root = frames[0];
	for (var i = 0; i < frames.length; i++) {
		var dy = inverted ? frames[i].y - root.y : root.y - frames[i].y;
		frames[i].d = Math.round(dy / fh);
	}

	box.addEventListener('mouseover', function (e) {
		var f = frameOf(e.target);
		if (f)
			details.textContent = nametype + ' ' + f.title.textContent;
	});
	box.addEventListener('mouseout', function (e) {
		if (frameOf(e.target))
			details.textContent = ' ';
	});
	box.addEventListener('click', function (e) {
		var f = frameOf(e.target);
		if (f) {
			zoom(f);
			updateURL();
		}
	});
	unzoombtn.addEventListener('click', function () {
		unzoom();
		updateURL();
	});
	searchbtn.addEventListener('click', function () {
		if (term !== null) {
			clearSearch();
			updateURL();
		} else {
			askSearch();
		}
	});
	icbtn.addEventListener('click', function () {
		setIcase(!icase);
		updateURL();
	});
	window.addEventListener('keydown', function (e) {
		var k = e.key || '';
		var mod = e.ctrlKey || e.metaKey;
		if (mod && (k === 'f' || k === 'F' || e.keyCode === 70)) {
			e.preventDefault();
			askSearch();
		} else if (mod && (k === 'i' || k === 'I' || e.keyCode === 73)) {
			e.preventDefault();
			setIcase(!icase);
			updateURL();
		} else if (k === 'Escape' || k === 'Esc' || e.keyCode === 27) {
			if (term !== null) {
				clearSearch();
				updateURL();
			}
		}
	});
	restore();
}

window.addEventListener('load', init);
})();
