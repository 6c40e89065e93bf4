-- The replay page of lucid.viewer.write: HTML, CSS and the viewer's JavaScript, with the
-- placeholders @TITLE@ (HTML-escaped), @THREE@ (three.min.js, r111 non-module build),
-- @DATA@ (the recording, "lucid.record/1" JSON) and @OPTIONS@ (the page options as JSON).
-- The page needs no network: everything is in the file. It marks its state for tests:
-- body[data-status] is "ready" after the first frame is drawn, any JavaScript error turns
-- the title into "lucid-viewer-error: ..." and shows it; with "probe=1" in the URL hash it
-- writes the screen positions of the objects and force arrows, and the height fields' drawn
-- vertices, into <pre id="lucid-probe">.
return [==[<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITLE@</title>
<style>
html, body { margin: 0; height: 100%; overflow: hidden; background: #dce5ee;
  font: 13px/1.4 sans-serif; color: #222; }
#view { position: absolute; left: 0; top: 0; right: 0; bottom: 0; }
#view canvas { display: block; }
#info { position: absolute; left: 10px; top: 8px; pointer-events: none; color: #444; }
#info b { font-size: 14px; }
#bar { position: absolute; left: 0; right: 0; bottom: 0; display: flex; gap: 10px;
  align-items: center; padding: 6px 10px; background: rgba(255, 255, 255, 0.88);
  border-top: 1px solid #ccd; }
#bar button { min-width: 4.5em; }
#slider { flex: 1; }
#clock { font-variant-numeric: tabular-nums; min-width: 17em; }
#err { position: absolute; left: 10px; right: 10px; top: 50px; padding: 8px; display: none;
  background: #fee; border: 1px solid #c00; color: #900; white-space: pre-wrap; }
</style></head>
<body data-status="loading">
<div id="view"></div>
<div id="info"><b>@TITLE@</b><br><span id="note"></span><br>
drag: orbit &middot; right- or shift-drag: pan &middot; wheel: zoom &middot; double-click: reset view
&middot; space: play/pause &middot; &larr;/&rarr;: step</div>
<div id="bar">
<button id="play" type="button">Play</button>
<input id="slider" type="range" min="1" max="1" value="1" step="1">
<span id="clock"></span>
<label>speed <select id="speed"></select></label>
<label><input id="forces" type="checkbox"> contact forces</label>
</div>
<div id="err"></div>
<pre id="lucid-probe" hidden></pre>
<script>
window.lucidErrors = [];
window.lucidFail = function (message) {
  window.lucidErrors.push(String(message));
  document.title = 'lucid-viewer-error: ' + message;
  var e = document.getElementById('err');
  if (e) { e.style.display = 'block'; e.textContent = 'Error: ' + window.lucidErrors.join('\n'); }
  if (document.body) document.body.setAttribute('data-status', 'error');
};
window.onerror = function (message, source, line) {
  window.lucidFail(message + ' (line ' + line + ')');
};
window.addEventListener('unhandledrejection', function (e) { window.lucidFail(e.reason); });
</script>
<script>@THREE@</script>
<script type="application/json" id="lucid-data">@DATA@</script>
<script type="application/json" id="lucid-options">@OPTIONS@</script>
<script>
(function () {
'use strict';
var D = JSON.parse(document.getElementById('lucid-data').textContent);
var O = JSON.parse(document.getElementById('lucid-options').textContent);
if (typeof THREE === 'undefined') throw new Error('three.js did not load');
if (D.format !== 'lucid.record/1') throw new Error('unknown recording format ' + D.format);
var F = D.frames, N = F.count;
if (N < 1) throw new Error('the recording has no frames');

// ---- frames: offsets into the flat pose (7 numbers) and contact (8 numbers) arrays ----
var poseOff = new Array(N), conOff = new Array(N);
(function () {
  var p = 0, c = 0;
  for (var k = 0; k < N; ++k) {
    poseOff[k] = p; p += F.objects[k];
    conOff[k] = c; c += F.contacts[k];
  }
  if (7 * p !== F.poses.length || 8 * c !== F.contact_data.length)
    throw new Error('the recording is inconsistent (pose or contact counts)');
})();
function poseOf(k, i) { return F.poses.slice(7 * (poseOff[k] + i), 7 * (poseOff[k] + i) + 7); }
function setPose(obj, p) {  // p = [tx, ty, tz, qw, qx, qy, qz]
  obj.position.set(p[0], p[1], p[2]);
  obj.quaternion.set(p[4], p[5], p[6], p[3]);
}

// ---- colours ----
var PALETTE = ['#d62728', '#1f77b4', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
               '#17becf', '#bcbd22', '#7f7f7f'];
// the sky is light blue, the floor a checkerboard of two greys: bodies stand out from both
var STATIC_COLOR = '#9aa0a8', TILE_LIGHT = '#d2d6db', TILE_DARK = '#a9afb7', BACKGROUND = '#dce5ee';
var ARROW_COLOR = '#00c000';
var colors = [], dynamic = 0;
D.objects.forEach(function (o, i) {
  colors[i] = (O.colors && O.colors[i]) || (o.static ? STATIC_COLOR : PALETTE[dynamic++ % PALETTE.length]);
});

// ---- scene bounds: every part's bounding sphere over every frame, the ground excluded ----
// (halfspaces always; height fields too unless nothing else is there: terrain is ground)
function partRadius(p) {  // about the part's own origin
  switch (p.kind) {
    case 'sphere': return p.radius;
    case 'ellipsoid': return Math.max.apply(null, p.radii);
    case 'box': return Math.hypot(p.half_extents[0], p.half_extents[1], p.half_extents[2]);
    case 'capsule': return p.radius + p.half_length;
    case 'cylinder': case 'cone': return Math.hypot(p.radius, p.half_length);
    case 'convex': {
      var v = D.meshes[p.mesh].vertices, r = 0;
      for (var j = 0; j < v.length; j += 3) r = Math.max(r, Math.hypot(v[j], v[j + 1], v[j + 2]));
      return r;
    }
    case 'heightfield': {  // heights lie in [0, size[2]], the base at -size[3]
      var s = D.heightfields[p.heightfield].size;
      return Math.hypot(s[0], s[1], Math.max(s[2], s[3]));
    }
  }
  return 0;
}
var lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
function bound(ground) {  // grows lo, hi by the parts whose kind is not in ground
  var spheres = D.objects.map(function (o) {  // [x, y, z, r] in the object's frame
    return o.parts.filter(function (p) { return ground.indexOf(p.kind) < 0; })
      .map(function (p) { return [p.pose[0], p.pose[1], p.pose[2], partRadius(p)]; });
  });
  for (var k = 0; k < N; ++k)
    for (var i = 0; i < F.objects[k]; ++i) {
      if (!spheres[i].length) continue;
      var p = poseOf(k, i), rot = new THREE.Quaternion(p[4], p[5], p[6], p[3]);
      spheres[i].forEach(function (s) {
        var c = new THREE.Vector3(s[0], s[1], s[2]).applyQuaternion(rot);
        for (var a = 0; a < 3; ++a) {
          lo[a] = Math.min(lo[a], p[a] + c.getComponent(a) - s[3]);
          hi[a] = Math.max(hi[a], p[a] + c.getComponent(a) + s[3]);
        }
      });
    }
}
bound(['halfspace', 'heightfield']);
if (!(lo[0] <= hi[0])) bound(['halfspace']);
var center = new THREE.Vector3(0, 0, 0), radius = 1;
if (lo[0] <= hi[0]) {
  center.set((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
  radius = Math.max(0.5 * Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]), 1e-3);
}

// ---- renderer, camera, lights ----
// "#size=WxH" fixes the drawing's size in CSS pixels (tests: a screenshot and the probe then
// agree whatever the window does); otherwise the drawing fills the window.
var fixedSize = (/[#&]size=(\d+)x(\d+)/.exec(window.location.hash) || []).slice(1).map(Number);
function viewSize() {
  return fixedSize.length === 2 && fixedSize[0] > 0 && fixedSize[1] > 0 ? fixedSize
    : [window.innerWidth, window.innerHeight];
}
var view = document.getElementById('view');
var renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
renderer.setPixelRatio(window.devicePixelRatio || 1);
renderer.setSize(viewSize()[0], viewSize()[1]);
renderer.setClearColor(new THREE.Color(BACKGROUND), 1);
renderer.shadowMap.enabled = true;
renderer.shadowMap.type = THREE.PCFSoftShadowMap;
view.appendChild(renderer.domElement);
var scene = new THREE.Scene();
scene.fog = new THREE.Fog(new THREE.Color(BACKGROUND), 1, 2);  // set by placeCamera
var camera = new THREE.PerspectiveCamera(40, viewSize()[0] / viewSize()[1],
                                         radius * 1e-3, radius * 1e3);
camera.up.set(0, 0, 1);
scene.add(camera);
scene.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 0.55));
var headlight = new THREE.DirectionalLight(0xffffff, 0.45);
headlight.position.set(-0.5, 1, 0.8);  // above and left of the viewer, follows the camera
camera.add(headlight);
camera.add(headlight.target);
headlight.target.position.set(0, 0, -1);

// ---- shapes ----
function material(color, kind) {
  return new THREE.MeshPhongMaterial({color: new THREE.Color(color), shininess: 25,
    flatShading: kind === 'convex' || kind === 'box' || kind === 'heightfield',
    side: kind === 'capsule' ? THREE.DoubleSide : THREE.FrontSide});
}
function geometry(p) {
  var g;
  switch (p.kind) {
    case 'sphere': return new THREE.SphereBufferGeometry(p.radius, 32, 16);
    case 'ellipsoid':
      g = new THREE.SphereBufferGeometry(1, 32, 16);
      g.scale(p.radii[0], p.radii[1], p.radii[2]);
      return g;
    case 'box':
      return new THREE.BoxBufferGeometry(2 * p.half_extents[0], 2 * p.half_extents[1],
                                         2 * p.half_extents[2]);
    case 'capsule': {  // a swept segment [-h, h] on z: a lathe of its profile
      var pts = [], n = 12, r = p.radius, h = p.half_length;
      for (var j = 0; j <= n; ++j) {
        var a = -Math.PI / 2 + j * Math.PI / (2 * n);
        pts.push(new THREE.Vector2(r * Math.cos(a), -h + r * Math.sin(a)));
      }
      for (var j2 = 0; j2 <= n; ++j2) {
        var b = j2 * Math.PI / (2 * n);
        pts.push(new THREE.Vector2(r * Math.cos(b), h + r * Math.sin(b)));
      }
      g = new THREE.LatheBufferGeometry(pts, 32);
      g.rotateX(Math.PI / 2);  // the lathe's y axis onto z
      return g;
    }
    case 'cylinder':
      g = new THREE.CylinderBufferGeometry(p.radius, p.radius, 2 * p.half_length, 32);
      g.rotateX(Math.PI / 2);
      return g;
    case 'cone':  // apex at +h on z, base at -h
      g = new THREE.CylinderBufferGeometry(0, p.radius, 2 * p.half_length, 32);
      g.rotateX(Math.PI / 2);
      return g;
    case 'heightfield': return terrain(D.heightfields[p.heightfield]);
    case 'convex': {  // faces are counter-clockwise vertex cycles seen from outside
      var m = D.meshes[p.mesh], v = m.vertices, pos = [];
      m.faces.forEach(function (f) {
        for (var j3 = 1; j3 + 1 < f.length; ++j3)
          [f[0], f[j3], f[j3 + 1]].forEach(function (q) { pos.push(v[3 * q], v[3 * q + 1], v[3 * q + 2]); });
      });
      g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
      g.computeVertexNormals();
      return g;
    }
  }
  throw new Error('unknown shape kind ' + p.kind);
}
// A height field as lucid collides it: sample (r, c) at x = -size[0] + 2 size[0] c / (columns - 1),
// y = -size[1] + 2 size[1] r / (rows - 1); each cell two triangles split along the diagonal from
// (r + 1, c) to (r, c + 1); a solid down to z = -size[3] (walls around the rim, a bottom).
// Triangles are counter-clockwise seen from outside: 6 ((R-1)(C-1) + 2(R-1) + 2(C-1) + 1) vertices.
function terrain(h) {
  var R = h.rows, C = h.columns, s = h.size, pos = [], r, c;
  function top(r, c) {
    return [-s[0] + 2 * s[0] * c / (C - 1), -s[1] + 2 * s[1] * r / (R - 1), h.heights[r * C + c]];
  }
  function tri(a, b, c) { pos.push(a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]); }
  for (r = 0; r + 1 < R; ++r)
    for (c = 0; c + 1 < C; ++c) {
      tri(top(r, c), top(r, c + 1), top(r + 1, c));
      tri(top(r + 1, c), top(r, c + 1), top(r + 1, c + 1));
    }
  var rim = [];  // the boundary samples, counter-clockwise seen from above
  for (c = 0; c + 1 < C; ++c) rim.push(top(0, c));
  for (r = 0; r + 1 < R; ++r) rim.push(top(r, C - 1));
  for (c = C - 1; c > 0; --c) rim.push(top(R - 1, c));
  for (r = R - 1; r > 0; --r) rim.push(top(r, 0));
  rim.forEach(function (a, k) {
    var b = rim[(k + 1) % rim.length], a0 = [a[0], a[1], -s[3]], b0 = [b[0], b[1], -s[3]];
    tri(a, a0, b0);
    tri(a, b0, b);
  });
  var corner = function (x, y) { return [x * s[0], y * s[1], -s[3]]; };
  tri(corner(-1, -1), corner(1, 1), corner(1, -1));
  tri(corner(-1, -1), corner(-1, 1), corner(1, 1));
  var g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  g.computeVertexNormals();
  return g;
}
function darker(color) { return new THREE.Color(color).multiplyScalar(0.55); }

var groups = [], terrains = [];
D.objects.forEach(function (o, i) {
  var group = new THREE.Group();
  group.name = o.name;
  o.parts.forEach(function (p) {
    if (p.kind === 'halfspace') return;
    var g = geometry(p);
    var mesh = new THREE.Mesh(g, material(colors[i], p.kind));
    mesh.castShadow = true;
    mesh.receiveShadow = p.kind === 'heightfield';  // terrain shows the bodies' shadows
    if (p.kind === 'heightfield') terrains.push({object: i, mesh: mesh});
    setPose(mesh, p.pose);
    group.add(mesh);
    if (p.kind === 'box' || p.kind === 'convex' || p.kind === 'cylinder' || p.kind === 'cone') {
      var edges = new THREE.LineSegments(new THREE.EdgesGeometry(g, 20),
                                         new THREE.LineBasicMaterial({color: darker(colors[i])}));
      setPose(edges, p.pose);
      group.add(edges);
    }
  });
  group.visible = false;
  scene.add(group);
  groups[i] = group;
});

// Halfspaces {n.x <= offset}: a large square of their boundary plane, centred under the
// scene, posed once (only static bodies hold halfspaces), drawn as a checkerboard of tiles of a
// round size (1, 2 or 5 times a power of ten, about a third of the scene radius) aligned with
// the plane's axes through the world origin, so that tiles measure distances and motion.
var tile = (function () {
  var raw = radius / 3, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  return (raw >= 5 * mag ? 5 : raw >= 2 * mag ? 2 : 1) * mag;
})();
function checkerTexture() {  // 2 x 2 tiles of 32 px, a darker line along the tile edges
  var n = 64, data = new Uint8Array(4 * n * n);
  var light = new THREE.Color(TILE_LIGHT), dark = new THREE.Color(TILE_DARK);
  for (var y = 0; y < n; ++y)
    for (var x = 0; x < n; ++x) {
      var c = ((x < 32) !== (y < 32)) ? dark : light, edge = x % 32 === 0 || y % 32 === 0;
      var f = edge ? 0.8 : 1;
      data.set([255 * c.r * f, 255 * c.g * f, 255 * c.b * f, 255], 4 * (y * n + x));
    }
  var t = new THREE.DataTexture(data, n, n, THREE.RGBAFormat);
  t.wrapS = t.wrapT = THREE.RepeatWrapping;
  t.magFilter = THREE.LinearFilter;
  t.minFilter = THREE.LinearMipmapLinearFilter;
  t.generateMipmaps = true;
  t.anisotropy = renderer.capabilities.getMaxAnisotropy();
  t.needsUpdate = true;
  return t;
}
var floorNormal = null;  // the most upward halfspace normal (+z): the sun shines along -normal
D.objects.forEach(function (o, i) {
  o.parts.forEach(function (p) {
    if (p.kind !== 'halfspace') return;
    var k0 = 0;
    while (k0 < N && F.objects[k0] <= i) ++k0;
    if (k0 === N) return;
    var body = new THREE.Object3D(), part = new THREE.Object3D();
    setPose(body, poseOf(k0, i));
    setPose(part, p.pose);
    body.add(part);
    body.updateMatrixWorld(true);
    var n = new THREE.Vector3(p.normal[0], p.normal[1], p.normal[2]);
    var p0 = part.localToWorld(n.clone().multiplyScalar(p.offset));
    var nw = part.localToWorld(n.clone()).sub(part.localToWorld(new THREE.Vector3())).normalize();
    var c = center.clone().sub(nw.clone().multiplyScalar(center.clone().sub(p0).dot(nw)));
    var size = 40 * radius;  // faded into the background by the fog far away
    var geo = new THREE.PlaneBufferGeometry(size, size);
    var q = new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 0, 1), nw);
    var e1 = new THREE.Vector3(1, 0, 0).applyQuaternion(q), e2 = new THREE.Vector3(0, 1, 0).applyQuaternion(q);
    var pos = geo.attributes.position, uv = geo.attributes.uv;
    for (var j = 0; j < pos.count; ++j)  // the texture holds 2 x 2 tiles
      uv.setXY(j, (pos.getX(j) + c.dot(e1)) / (2 * tile), (pos.getY(j) + c.dot(e2)) / (2 * tile));
    var plane = new THREE.Mesh(geo, new THREE.MeshLambertMaterial({map: checkerTexture(),
      side: THREE.DoubleSide, polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1}));
    plane.receiveShadow = true;
    plane.quaternion.copy(q);
    plane.position.copy(c);
    plane.name = o.name;
    scene.add(plane);
    if (!floorNormal || nw.z > floorNormal.z) floorNormal = nw;
  });
});

// The sun: straight down onto the floor (along -z without one), casting the bodies' shadows
// on the floor, so that a body's height above it shows.
var sun = new THREE.DirectionalLight(0xffffff, 0.4);
sun.position.copy(center).add((floorNormal || new THREE.Vector3(0, 0, 1)).clone().multiplyScalar(4 * radius));
sun.target.position.copy(center);
sun.castShadow = true;
sun.shadow.mapSize.set(2048, 2048);
sun.shadow.camera.left = sun.shadow.camera.bottom = -1.5 * radius;
sun.shadow.camera.right = sun.shadow.camera.top = 1.5 * radius;
sun.shadow.camera.near = 0.5 * radius;
sun.shadow.camera.far = 8 * radius;
sun.shadow.bias = -1e-4;
scene.add(sun);
scene.add(sun.target);

// ---- contact force arrows: the force on the moving body of each contact ----
var norms = [];
for (var q = 0; q < F.contact_data.length; q += 8)
  norms.push(Math.hypot(F.contact_data[q + 5], F.contact_data[q + 6], F.contact_data[q + 7]));
norms.sort(function (x, y) { return x - y; });
var typical = norms.length ? norms[Math.floor(0.95 * (norms.length - 1))] : 0;
var forceScale = O.force_scale || (typical > 0 ? 0.35 * radius / typical : 1);
var arrows = [];
function arrow(j) {
  while (arrows.length <= j) {
    var h = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1,
                                  new THREE.Color(ARROW_COLOR).getHex());
    [h.line.material, h.cone.material].forEach(function (m) { m.depthTest = false; m.transparent = true; });
    h.renderOrder = 10;
    h.visible = false;
    scene.add(h);
    arrows.push(h);
  }
  return arrows[j];
}

// ---- camera orbit (z up): target, distance, azimuth, elevation ----
var orbit = {};
// The distance at which the camera, looking at the scene's centre from (azimuth, elevation),
// sees every corner of the scene's bounds inside 85 % of the view: for each corner q (relative
// to the centre), |q.right| <= depth tan(hfov / 2) and |q.up| <= depth tan(vfov / 2).
function framingDistance(azimuth, elevation) {
  if (!(lo[0] <= hi[0])) return 3.3 * radius;
  var ce = Math.cos(elevation);
  var back = new THREE.Vector3(ce * Math.cos(azimuth), ce * Math.sin(azimuth), Math.sin(elevation));
  var right = new THREE.Vector3(0, 0, 1).cross(back).normalize(), up = back.clone().cross(right);
  var ty = 0.85 * Math.tan(camera.fov * Math.PI / 360), tx = ty * viewSize()[0] / viewSize()[1];
  var d = radius;  // at least outside the bounding sphere's core
  for (var corner = 0; corner < 8; ++corner) {
    var q = new THREE.Vector3(corner & 1 ? hi[0] : lo[0], corner & 2 ? hi[1] : lo[1],
                              corner & 4 ? hi[2] : lo[2]).sub(center);
    var ahead = -q.dot(back);  // how far the corner lies beyond the centre, seen from the camera
    d = Math.max(d, Math.abs(q.dot(right)) / tx - ahead, Math.abs(q.dot(up)) / ty - ahead);
  }
  return d;
}
function resetCamera() {
  orbit.target = center.clone();
  orbit.azimuth = -Math.PI / 2 - 0.6;
  orbit.elevation = 0.45;
  orbit.distance = framingDistance(orbit.azimuth, orbit.elevation);
  if (O.camera) {
    var e = new THREE.Vector3().fromArray(O.camera.eye || [0, 0, 0]);
    orbit.target = new THREE.Vector3().fromArray(O.camera.target || center.toArray());
    var d = e.clone().sub(orbit.target);
    if (O.camera.eye && d.length() > 0) {
      orbit.distance = d.length();
      orbit.azimuth = Math.atan2(d.y, d.x);
      orbit.elevation = Math.asin(Math.max(-1, Math.min(1, d.z / orbit.distance)));
    }
  }
  placeCamera();
}
function placeCamera() {
  var lim = Math.PI / 2 - 1e-3;
  orbit.elevation = Math.max(-lim, Math.min(lim, orbit.elevation));
  var ce = Math.cos(orbit.elevation);
  camera.position.set(orbit.target.x + orbit.distance * ce * Math.cos(orbit.azimuth),
                      orbit.target.y + orbit.distance * ce * Math.sin(orbit.azimuth),
                      orbit.target.z + orbit.distance * Math.sin(orbit.elevation));
  camera.lookAt(orbit.target);
  camera.near = orbit.distance * 1e-3;
  camera.far = orbit.distance + 40 * radius;
  scene.fog.near = 1.5 * orbit.distance + 2 * radius;
  scene.fog.far = 4 * orbit.distance + 8 * radius;
  camera.updateProjectionMatrix();
  dirty = true;
}
var drag = null;
var canvas = renderer.domElement;
canvas.addEventListener('contextmenu', function (e) { e.preventDefault(); });
canvas.addEventListener('pointerdown', function (e) {
  drag = {x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey};
  canvas.setPointerCapture(e.pointerId);
});
canvas.addEventListener('pointerup', function () { drag = null; });
canvas.addEventListener('pointermove', function (e) {
  if (!drag) return;
  var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  drag.x = e.clientX; drag.y = e.clientY;
  if (drag.pan) {
    var s = 2 * orbit.distance * Math.tan(camera.fov * Math.PI / 360) / canvas.clientHeight;
    var right = new THREE.Vector3().setFromMatrixColumn(camera.matrix, 0);
    var up = new THREE.Vector3().setFromMatrixColumn(camera.matrix, 1);
    orbit.target.add(right.multiplyScalar(-dx * s)).add(up.multiplyScalar(dy * s));
  } else {
    orbit.azimuth -= dx * 0.006;
    orbit.elevation += dy * 0.006;
  }
  placeCamera();
});
canvas.addEventListener('wheel', function (e) {
  e.preventDefault();
  orbit.distance *= Math.exp(Math.max(-0.5, Math.min(0.5, e.deltaY * 0.001)));
  placeCamera();
}, {passive: false});
canvas.addEventListener('dblclick', resetCamera);

// ---- playback ----
var T = F.time, span = T[N - 1] - T[0];
var state = {frame: 0, playing: N > 1, clock: T[0], speed: O.speed || 1, forces: O.forces !== false};
var dirty = true, drawn = false;
var playButton = document.getElementById('play'), slider = document.getElementById('slider');
var clock = document.getElementById('clock'), speedSelect = document.getElementById('speed');
var forcesBox = document.getElementById('forces');
slider.max = String(N);
var speeds = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 10];
if (speeds.indexOf(state.speed) < 0) speeds.push(state.speed);
speeds.sort(function (x, y) { return x - y; }).forEach(function (s) {
  var opt = document.createElement('option');
  opt.value = String(s); opt.textContent = s + '\u00d7';
  if (s === state.speed) opt.selected = true;
  speedSelect.appendChild(opt);
});
var note = [D.objects.length + ' objects, ' + N + ' frames'];
if (F.dropped > 0) note.push(F.dropped + ' frames dropped (the recording was full)');
if (norms.length) note.push('force arrows: 1 m = ' + (1 / forceScale).toPrecision(3) + ' N');
if (floorNormal) note.push('floor tiles ' + String(Number(tile.toPrecision(1))) + ' m');
document.getElementById('note').textContent = note.join(' \u00b7 ');

function setFrame(k) {
  state.frame = Math.max(0, Math.min(N - 1, k));
  state.clock = T[state.frame];
  dirty = true;
}
function setPlaying(on) {
  state.playing = on && N > 1;
  playButton.textContent = state.playing ? 'Pause' : 'Play';
  if (state.playing && state.frame === N - 1) setFrame(0);
}
playButton.addEventListener('click', function () { setPlaying(!state.playing); });
slider.addEventListener('input', function () { setPlaying(false); setFrame(Number(slider.value) - 1); });
speedSelect.addEventListener('change', function () { state.speed = Number(speedSelect.value); });
forcesBox.checked = state.forces;
forcesBox.addEventListener('change', function () { state.forces = forcesBox.checked; dirty = true; });
window.addEventListener('keydown', function (e) {
  if (e.target && e.target.tagName === 'SELECT') return;
  if (e.key === ' ') { setPlaying(!state.playing); e.preventDefault(); }
  else if (e.key === 'ArrowRight') { setPlaying(false); setFrame(state.frame + 1); }
  else if (e.key === 'ArrowLeft') { setPlaying(false); setFrame(state.frame - 1); }
  else if (e.key === 'Home') setFrame(0);
  else if (e.key === 'End') setFrame(N - 1);
});
window.addEventListener('resize', function () {
  renderer.setSize(viewSize()[0], viewSize()[1]);
  camera.aspect = viewSize()[0] / viewSize()[1];
  camera.updateProjectionMatrix();
  dirty = true;
});

var probe = false, hashNote = '';
function readHash() {
  var h = {};
  window.location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var m = kv.split('=');
    if (m[0]) h[m[0]] = m.length > 1 ? decodeURIComponent(m[1]) : '';
  });
  probe = h.probe === '1';
  if (h.forces !== undefined) { state.forces = h.forces !== '0'; forcesBox.checked = state.forces; }
  hashNote = '';
  if (h.frame !== undefined) {
    var f = parseInt(h.frame, 10);
    if (!(f >= 1 && f <= N)) {  // a link to a longer recording: show the nearest frame, and say so
      var shown = f > N ? N : 1;
      hashNote = '#frame=' + h.frame + ' is not in 1..' + N + ': frame ' + shown + ' shown';
      f = shown;
    }
    setPlaying(false);
    setFrame(f - 1);
  } else if (h.play !== undefined) {
    setPlaying(h.play !== '0');
  }
  document.getElementById('note').textContent = note.concat(hashNote ? [hashNote] : []).join(' \u00b7 ');
  dirty = true;
}
window.addEventListener('hashchange', readHash);

function showFrame(k) {
  var count = F.objects[k];
  groups.forEach(function (g, i) {
    g.visible = i < count;
    if (g.visible) setPose(g, poseOf(k, i));
  });
  var used = 0;
  if (state.forces) {
    for (var c = conOff[k]; c < conOff[k] + F.contacts[k]; ++c) {
      var d = F.contact_data.slice(8 * c, 8 * c + 8);
      var f = new THREE.Vector3(d[5], d[6], d[7]);
      var o2 = d[1], o1 = d[0];
      if (o2 >= 0 && D.objects[o2].static && !(o1 >= 0 && D.objects[o1].static)) f.negate();
      var len = Math.min(f.length() * forceScale, 1.5 * radius);
      if (!(len > 1e-6 * radius)) continue;
      var h = arrow(used++);
      h.position.set(d[2], d[3], d[4]);
      h.setDirection(f.normalize());
      h.setLength(len, Math.min(0.3 * len, 0.08 * radius), Math.min(0.18 * len, 0.05 * radius));
      h.visible = true;
    }
  }
  for (var j = used; j < arrows.length; ++j) arrows[j].visible = false;
  clock.textContent = 't = ' + T[k].toFixed(3) + ' s \u00b7 frame ' + (k + 1) + ' / ' + N;
  slider.value = String(k + 1);
  return used;
}

function screenOf(v) {
  var p = v.clone().project(camera), size = viewSize();
  return [Math.round(((p.x + 1) / 2 * size[0]) * 10) / 10,
          Math.round(((1 - p.y) / 2 * size[1]) * 10) / 10, p.z];
}
function writeProbe(usedArrows) {
  var out = {frame: state.frame + 1, time: T[state.frame], width: viewSize()[0],
             height: viewSize()[1], pixel_ratio: window.devicePixelRatio || 1,
             background: BACKGROUND, tile: floorNormal ? tile : null, arrow_color: ARROW_COLOR,
             camera: {eye: camera.position.toArray(), target: orbit.target.toArray(),
                      fov: camera.fov},
             note: document.getElementById('note').textContent,
             forces: state.forces, objects: [], arrows: []};
  groups.forEach(function (g, i) {
    out.objects.push({name: D.objects[i].name, color: colors[i], visible: g.visible,
                      screen: screenOf(g.position)});
  });
  out.terrain = terrains.map(function (t) {  // the vertex count, the first cell's two triangles
    var a = t.mesh.geometry.attributes.position;
    return {object: t.object, vertices: a.count, first_cell: Array.from(a.array.slice(0, 18))};
  });
  for (var j = 0; j < usedArrows; ++j) {
    var h = arrows[j], len = h.line.scale.y;  // the shaft: from the origin, length len
    var dir = new THREE.Vector3(0, 1, 0).applyQuaternion(h.quaternion);
    out.arrows.push({screen_mid: screenOf(h.position.clone().add(dir.multiplyScalar(0.5 * len)))});
  }
  document.getElementById('lucid-probe').textContent = JSON.stringify(out);
}

var last = null;
function animate(now) {
  requestAnimationFrame(animate);
  if (last === null) last = now;
  var elapsed = Math.min((now - last) / 1000, 0.25);
  last = now;
  if (state.playing) {
    if (span > 0) {
      state.clock += elapsed * state.speed;
      if (state.clock > T[N - 1]) { state.clock = T[0]; state.frame = 0; }
      var k = state.frame;
      while (k + 1 < N && T[k + 1] <= state.clock) ++k;
      if (k !== state.frame) { state.frame = k; dirty = true; }
    } else {
      state.frame = (state.frame + 1) % N;
      dirty = true;
    }
  }
  if (!dirty) return;
  dirty = false;
  var used = showFrame(state.frame);
  renderer.render(scene, camera);
  if (probe) writeProbe(used);
  if (!drawn && window.lucidErrors.length === 0) {
    drawn = true;
    document.body.setAttribute('data-status', 'ready');
  }
}

resetCamera();
if (O.frame) setFrame(O.frame - 1);
setPlaying(O.playing !== undefined ? O.playing : !O.frame);
readHash();
requestAnimationFrame(animate);
window.lucidViewer = {setFrame: function (n) { setPlaying(false); setFrame(n - 1); },
                      frames: N, camera: camera, scene: scene};
})();
</script>
</body></html>
]==]
