// segue preview's page: the proxy video, the story's timeline, and the server's events.
// Everything comes from this server: /api/story, /proxy.mp4, /thumb/N, /frame/N, /events.
'use strict';
const $ = (selector) => document.querySelector(selector);
const video = $('#player');
let story = null;        // the last story that read (GET /api/story's "story")
let reverse = null;      // the interval stepping back while J plays backwards
let dragging = false;

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The frame at the playhead: frame ⌊time × fps⌋, within the video.
function currentFrame() {
  if (!story) return 0;
  return Math.max(0, Math.min(story.frameCount - 1, Math.floor(video.currentTime * story.fps + 1e-6)));
}

function seekFrame(n) {
  if (!story) return;
  n = Math.max(0, Math.min(story.frameCount - 1, n));
  video.currentTime = (n + 0.5) / story.fps;
  showClock();
}

function showClock() {
  const t = video.currentTime;
  $('#time').textContent = t.toFixed(2) + ' s';
  $('#frame').textContent = currentFrame();
  $('#frames').textContent = story ? story.frameCount : 0;
  if (story) $('#playhead').style.left = (100 * t / story.duration) + '%';
  $('#play').textContent = video.paused && !reverse ? 'Play' : 'Pause';
}

function percent(t) { return (100 * t / story.duration) + '%'; }

function block(lane, className, start, end, text) {
  const b = element('div', 'block ' + className, text);
  b.style.left = percent(start);
  b.style.width = 'max(3px, ' + (100 * (end - start) / story.duration) + '%)';
  b.title = text;
  lane.appendChild(b);
  return b;
}

function showOrigin(what, origin, start) {
  const box = $('#origin');
  box.replaceChildren();
  const p = element('p');
  p.append(what + ': ', element('code', null, origin));
  box.appendChild(p);
  document.querySelectorAll('.block.selected').forEach((b) => b.classList.remove('selected'));
  if (start !== undefined) { video.currentTime = start + 0.001; showClock(); }
}

function clickable(b, what, origin, start) {
  b.addEventListener('pointerdown', (e) => {
    e.stopPropagation();
    showOrigin(what, origin, start);
    b.classList.add('selected');
  });
}

function drawTimeline() {
  const slides = $('#slides'), cuts = $('#cuts'), texts = $('#texts'), sounds = $('#sounds');
  [slides, cuts, texts, sounds].forEach((lane) => lane.replaceChildren());
  for (const s of story.slides) {
    const b = block(slides, 'slide', s.start, s.end, '');
    b.dataset.slide = s.index;
    const img = element('img');
    img.alt = 'slide ' + (s.index + 1);
    img.src = '/thumb/' + s.index + '?k=' + s.key;
    b.append(img, element('span', null, (s.index + 1) + ' · ' + (s.holdEnd - s.holdStart).toFixed(2) + ' s'));
    b.title = s.name + ': hold ' + (s.holdEnd - s.holdStart).toFixed(2) + ' s';
    clickable(b, 'Slide ' + (s.index + 1) + ' (' + s.name + ')', s.origin, s.holdStart);
  }
  for (const c of story.cuts) {
    const label = c.kind + ' ' + c.duration.toFixed(2) + ' s' + (c.blur ? ' · blur ' + c.blur + '°' : '') + (c.beat !== undefined ? ' ♩' : '');
    const b = block(cuts, 'cut', c.start, c.start + c.duration, '');
    b.appendChild(element('span', null, label));
    b.title = label + (c.beat !== undefined ? ': on ' + c.beatLabel + ' at ' + c.beat.toFixed(3) + ' s, moved ' + (c.moved >= 0 ? '+' : '') + c.moved.toFixed(3) + ' s' : '');
    if (c.beat !== undefined) {
      b.classList.add('on-beat');
      const mark = element('div', 'beat-mark');
      mark.style.left = (100 * (c.beat - c.start) / Math.max(1e-6, c.duration)) + '%';
      if (c.duration === 0) mark.style.left = '0';
      b.appendChild(mark);
    }
    b.dataset.cut = c.index;
    clickable(b, 'Cut ' + (c.index + 1) + ' (' + c.kind + ')', c.origin, c.start);
  }
  placeCutLabels();
  // Text and cues on as many rows as they need: each on the first row free at its start.
  const rows = [];
  texts.replaceChildren();
  story.overlays.forEach((o, n) => {
    const start = Math.min(o.start, story.duration), end = Math.min(o.end, story.duration);
    let row = rows.findIndex((free) => free <= start + 1e-6);
    if (row < 0) { row = rows.length; rows.push(0); texts.appendChild(element('div', 'lane')); }
    rows[row] = end;
    const b = block(texts.children[row], o.kind === 'caption' || o.kind === 'leak' ? o.kind : 'text', start, end, o.text);
    b.dataset.overlay = n;
    clickable(b, o.kind[0].toUpperCase() + o.kind.slice(1) + ' “' + o.text + '”', o.origin, o.start);
  });
  for (const l of story.lanes) {
    const lane = element('div', 'lane');
    lane.dataset.lane = l.kind;
    const b = block(lane, 'sound', l.start, l.end, '');
    b.appendChild(element('span', null, l.kind + ': ' + l.name));
    b.title = l.kind + ': ' + l.name;
    if (l.kind === 'music') {
      for (const d of story.ducks) {
        const shade = element('div', 'duck');
        shade.style.left = (100 * d[0] / (l.end - l.start)) + '%';
        shade.style.width = (100 * (d[1] - d[0]) / (l.end - l.start)) + '%';
        shade.title = 'ducked';
        b.appendChild(shade);
      }
      // The beat grid the cuts are put on (timing: beats).
      for (const t of l.beats || []) {
        const tick = element('div', 'beat');
        tick.style.left = (100 * (t - l.start) / (l.end - l.start)) + '%';
        b.appendChild(tick);
      }
      const peak = Math.max(1e-6, ...l.level);
      l.level.forEach((v, i) => {
        const bar = element('div', 'level');
        bar.style.left = (100 * i / l.level.length) + '%';
        bar.style.height = (100 * v / peak) + '%';
        b.appendChild(bar);
      });
    }
    sounds.appendChild(lane);
  }
  const picker = $('#row');
  $('#rowpicker').hidden = !story.rows;
  if (story.rows && picker.options.length !== story.rows.length) {
    picker.replaceChildren(...story.rows.map((label, i) => { const o = element('option', null, label); o.value = i; return o; }));
  }
  if (story.rows) picker.value = story.row;
}

// Each cut's label over its cut, above it, or below it when it would meet the label before it
// above; whole on one of the two rows, so every label reads (the lane's own width permitting).
function placeCutLabels() {
  const ends = [-Infinity, -Infinity];
  for (const b of document.querySelectorAll('#cuts .cut')) {
    b.classList.remove('low');
    const r = b.firstChild.getBoundingClientRect();
    const row = r.left >= ends[0] + 4 ? 0 : r.left >= ends[1] + 4 ? 1 : (ends[0] <= ends[1] ? 0 : 1);
    b.classList.toggle('low', row === 1);
    ends[row] = b.firstChild.getBoundingClientRect().right;
  }
}

// The target's safe area over the video, when the story has a target; without one there is
// nothing to show, and the toggle says so.
function showSafeArea() {
  const s = story ? story.safeArea : [0, 0, 0, 0], target = s.some((v) => v > 0);
  const button = $('#safe');
  button.disabled = !target;
  button.title = target ? "The target's safe area" : 'No target: --target or canvas.safeArea gives the story one';
  const on = target && button.getAttribute('aria-pressed') === 'true';
  const area = $('#safearea');
  area.hidden = !on;
  [area.style.top, area.style.right, area.style.bottom, area.style.left] = s.map((v) => (100 * v) + '%');
}

function showErrors(errors) {
  $('#errors').hidden = errors.length === 0;
  $('#errortext').textContent = errors.join('\n');
}

// The export's progress, and how the last one ended; one that ended before the page opened,
// or before the story last changed, is not the story shown (`exportsBefore`: its number).
let exportsBefore = null;
function showExport(e) {
  if (!e) return;
  if (exportsBefore === null) exportsBefore = e.running ? e.number - 1 : e.number;
  if (e.number <= exportsBefore || (!e.running && !e.output && !e.error)) { $('#exportstatus').hidden = true; return; }
  $('#exportstatus').hidden = false;
  $('#exportbar').max = Math.max(1, e.total);
  $('#exportbar').value = e.done;
  $('#exporttext').textContent = e.running ? 'rendering: ' + e.done + ' of ' + e.total + ' frames'
    : e.error ? e.error : 'wrote ' + e.output + ' in ' + e.seconds.toFixed(1) + ' s';
  $('#export').disabled = e.running;
}

// Reads the story again; a new version replaces the video, keeping the playhead.
async function refresh() {
  const reply = await (await fetch('/api/story', {cache: 'no-store'})).json();
  showErrors(reply.errors);
  showExport(reply.export);
  $('#state').textContent = reply.ok
    ? 'Up to date: ' + reply.build.rendered + ' of ' + reply.build.segments + ' parts rendered again in ' + reply.build.seconds.toFixed(2) + ' s'
    : reply.story ? 'Showing the last version that read' : 'No preview yet';
  if (!reply.story || (story && reply.story.version === story.version)) return;
  const keep = video.currentTime, playing = !video.paused;
  if (story && !reply.export.running) { exportsBefore = reply.export.number; $('#exportstatus').hidden = true; }
  story = reply.story;
  document.body.dataset.version = story.version;
  $('#story').textContent = story.story.split('/').pop();
  $('#story').title = story.story;
  $('#phone').style.aspectRatio = story.width + ' / ' + story.height;
  drawTimeline();
  showSafeArea();
  video.addEventListener('loadedmetadata', () => {
    video.currentTime = Math.min(keep, video.duration);
    if (playing) video.play();
    document.body.dataset.loaded = story.version;
    showClock();
  }, {once: true});
  video.src = '/proxy.mp4?v=' + story.version;
}

function stopReverse() { if (reverse) { clearInterval(reverse); reverse = null; } }

function seekAt(event) {
  if (!story) return;
  const r = $('#timeline').getBoundingClientRect();
  video.currentTime = Math.max(0, Math.min(1, (event.clientX - r.left) / r.width)) * story.duration;
  showClock();
}

async function showFull() {
  if (!story) return;
  const n = currentFrame(), img = $('#fullimg');
  video.pause(); stopReverse();
  $('#fullview').hidden = false;
  $('#fullcaption').textContent = 'Frame ' + n + ' at ' + story.width + 'x' + story.height + ' (rendering…)';
  img.onload = () => { $('#fullcaption').textContent = 'Frame ' + n + ' at ' + story.width + 'x' + story.height; zoom(); };
  img.onerror = () => { $('#fullcaption').textContent = 'Frame ' + n + ' could not be drawn'; };
  img.src = '/frame/' + n + '?v=' + story.version;
}

function zoom() {
  const img = $('#fullimg'), z = Number($('#zoom').value);
  img.classList.toggle('fit', z === 0);
  img.style.width = z === 0 ? '' : (img.naturalWidth * z / devicePixelRatio) + 'px';
}

async function startExport() {
  const reply = await fetch('/api/export', {method: 'POST'});
  if (!reply.ok) { $('#exportstatus').hidden = false; $('#exporttext').textContent = await reply.text(); return; }
  showExport(await reply.json());
}

window.addEventListener('resize', () => { if (story) placeCutLabels(); });
video.addEventListener('timeupdate', showClock);
video.addEventListener('seeked', showClock);
video.addEventListener('play', showClock);
video.addEventListener('pause', showClock);
$('#play').addEventListener('click', () => { stopReverse(); video.paused ? video.play() : video.pause(); });
$('#safe').addEventListener('click', (e) => {
  e.target.setAttribute('aria-pressed', e.target.getAttribute('aria-pressed') === 'true' ? 'false' : 'true');
  showSafeArea();
});
$('#full').addEventListener('click', showFull);
$('#closefull').addEventListener('click', () => { $('#fullview').hidden = true; });
$('#zoom').addEventListener('change', zoom);
$('#export').addEventListener('click', startExport);
$('#row').addEventListener('change', (e) => fetch('/api/row?index=' + e.target.value, {method: 'POST'}));
$('#timeline').addEventListener('pointerdown', (e) => { dragging = true; $('#timeline').setPointerCapture(e.pointerId); seekAt(e); });
$('#timeline').addEventListener('pointermove', (e) => { if (dragging) seekAt(e); });
$('#timeline').addEventListener('pointerup', () => { dragging = false; });
document.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'SELECT' || e.ctrlKey || e.metaKey || e.altKey) return;
  const key = e.key.toLowerCase();
  if (key === 'arrowleft' || key === 'arrowright') {
    video.pause(); stopReverse();
    seekFrame(currentFrame() + (key === 'arrowright' ? 1 : -1));
  } else if (key === 'k') { video.pause(); stopReverse(); }
  else if (key === 'l') {
    const faster = !video.paused && !reverse;
    stopReverse();
    video.playbackRate = faster ? Math.min(4, video.playbackRate * 2) : 1;
    video.play();
  } else if (key === 'j') {
    video.pause(); stopReverse();
    reverse = setInterval(() => {
      if (video.currentTime <= 0) { stopReverse(); showClock(); return; }
      video.currentTime = Math.max(0, video.currentTime - 1 / story.fps);
    }, 1000 / (story ? story.fps : 30));
  } else if (key === ' ') { stopReverse(); video.paused ? video.play() : video.pause(); }
  else if (key === 'f') { showFull(); }
  else if (key === 'escape') { $('#fullview').hidden = true; }
  else return;
  e.preventDefault();
  showClock();
});

const events = new EventSource('/events');
events.addEventListener('update', refresh);
events.addEventListener('export', async () => showExport((await (await fetch('/api/story', {cache: 'no-store'})).json()).export));
refresh();
