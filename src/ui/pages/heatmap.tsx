import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { METRICS, type DiagnosticsJson, type HeatmapJson } from '../../insight/api-types.js';
import { diagnosticsPath, getJson, heatmapPath } from '../api.js';
import { formatClock, formatSeconds, formatValue } from '../format.js';
import { DiagnosticsPanel } from '../heatmap/diagnostics-panel.js';
import { drawHeatmap, rampGradient } from '../heatmap/draw.js';
import { blockBetween, blockOfRange, blockRect, drawnCellAt, timeTicks, type Cell, type CellBlock, type Grid } from '../heatmap/grid.js';
import { HierarchyAxis } from '../heatmap/hierarchy-axis.js';
import { positivePercentile, type ScaleMode } from '../heatmap/scale.js';
import { Tooltip } from '../heatmap/tooltip.js';
import { base64ToPrintable } from '../keys.js';
import { formatRoute, WINDOWS, type HeatmapView, type TableRef } from '../routes.js';

/** Live views refetch this often while the page is visible. */
const REFRESH_MS = 5000;
const HEIGHT = 480;
/** A drag shorter than this (px) is a click, not a zoom. */
const DRAG_PX = 4;

interface Loaded {
  readonly json: HeatmapJson;
  readonly path: string;
}

/**
 * The Key Visualizer: time across, key space down (lowest key on top), colour
 * by the chosen metric. Drag to zoom into a key range × time window (a new
 * request with from/to/start/end); the breadcrumb zooms back out.
 */
export function HeatmapPage(props: TableRef & { readonly view: HeatmapView }) {
  const { view } = props;
  const ref: TableRef = { project: props.project, instance: props.instance, table: props.table };
  const viewKey = formatRoute({ page: 'heatmap', ...ref, view });
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<string>();
  const [diags, setDiags] = useState<DiagnosticsJson>();
  const [diagError, setDiagError] = useState<string>();
  const [brightness, setBrightness] = useState(0);
  const [mode, setMode] = useState<ScaleMode>('linear');
  const [hover, setHover] = useState<{ cell: Cell; x: number; y: number }>();
  const [drag, setDrag] = useState<{ x0: number; y0: number; x1: number; y1: number }>();
  const [selected, setSelected] = useState<number>();
  const [trail, setTrail] = useState<readonly HeatmapView[]>([]);
  const [width, setWidth] = useState(800);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const abort = new AbortController();
    const live = view.to === undefined;
    const load = async () => {
      const now = Date.now();
      const path = heatmapPath(ref, view, now);
      await Promise.all([
        getJson<HeatmapJson>(path, abort.signal).then(
          (json) => {
            setLoaded({ json, path });
            setError(undefined);
          },
          (e: unknown) => abort.signal.aborted || setError(e instanceof Error ? e.message : String(e)),
        ),
        getJson<DiagnosticsJson>(diagnosticsPath(ref, view, now), abort.signal).then(
          (d) => {
            setDiags(d);
            setDiagError(undefined);
          },
          (e: unknown) => abort.signal.aborted || setDiagError(e instanceof Error ? e.message : String(e)),
        ),
      ]);
    };
    void load();
    const timer = live ? setInterval(() => document.visibilityState === 'visible' && void load(), REFRESH_MS) : undefined;
    const onVisible = () => live && document.visibilityState === 'visible' && void load();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      abort.abort();
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [viewKey]);

  useEffect(() => {
    const wrap = wrapRef.current;
    if (wrap === null) return undefined;
    const observer = new ResizeObserver((entries) => {
      const w = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (w > 0) setWidth(w);
    });
    observer.observe(wrap);
    return () => observer.disconnect();
  }, []);

  const heatmap = loaded?.json;
  const scale = useMemo(
    () => ({ ceiling: heatmap === undefined ? 0 : positivePercentile(heatmap.values, 99), mode, brightness: 2 ** brightness }),
    [heatmap, mode, brightness],
  );
  const grid: Grid = { columns: heatmap?.times.length ?? 0, rows: heatmap?.buckets.length ?? 0, width, height: HEIGHT };

  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (canvas === null || loaded === undefined) return;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(HEIGHT * dpr);
    drawHeatmap(canvas, loaded.json, scale);
    canvas.dataset['source'] = loaded.path;
  }, [loaded, scale, width]);

  const go = (next: HeatmapView) => {
    location.hash = formatRoute({ page: 'heatmap', ...ref, view: next });
  };
  const zoomInto = (block: CellBlock) => {
    if (heatmap === undefined) return;
    const lastColumn = block.column1 === heatmap.times.length - 1;
    const columnEnd = Date.parse(heatmap.times[block.column1]!) + heatmap.resolutionSeconds * 1000;
    const lastRow = heatmap.buckets.length - 1;
    setTrail([...trail, view]);
    setSelected(undefined);
    go({
      metric: view.metric,
      windowSeconds: view.windowSeconds,
      from: heatmap.times[block.column0],
      // A zoom that keeps the newest column of a live view stays live.
      to: lastColumn && view.to === undefined ? undefined : new Date(columnEnd).toISOString(),
      start: block.row0 === 0 ? view.start : heatmap.buckets[block.row0]!.start,
      end: block.row1 === lastRow ? view.end : (heatmap.buckets[block.row1]!.end ?? undefined),
    });
  };

  const point = (e: MouseEvent) => {
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    // The event came to the overlay, so it is inside it: whole-pixel client coordinates can round onto its far edge
    // (the last row of buckets would then show no tooltip).
    const inside = (v: number, size: number) => Math.min(Math.max(0, v), size - 1e-6);
    return { x: inside(e.clientX - r.left, r.width), y: inside(e.clientY - r.top, r.height) };
  };
  const dragBlock = drag === undefined ? undefined : blockBetween(grid, drag.x0, drag.y0, drag.x1, drag.y1);
  const dragging = drag !== undefined && (Math.abs(drag.x1 - drag.x0) > DRAG_PX || Math.abs(drag.y1 - drag.y0) > DRAG_PX);
  const diagnostic = selected === undefined ? undefined : diags?.diagnostics[selected];
  const outline =
    diagnostic === undefined || heatmap === undefined ? undefined : blockOfRange(heatmap, diagnostic.keyRange, diagnostic.timeRange);

  return (
    <div class="heatmap-page">
      <h1>
        Key Visualizer: {props.table}{' '}
        <a class="action" href={formatRoute({ page: 'table', ...ref })}>
          table details
        </a>
      </h1>
      <nav class="zoom-trail" aria-label="zoom">
        {trail.length === 0 && !isWhole(view) && (
          <a href={formatRoute({ page: 'heatmap', ...ref, view: wholeOf(view) })}>{viewLabel(wholeOf(view))}</a>
        )}
        {trail.map((v, i) => (
          <a
            key={i}
            href={formatRoute({ page: 'heatmap', ...ref, view: v })}
            onClick={() => {
              setTrail(trail.slice(0, i));
              setSelected(undefined);
            }}
          >
            {viewLabel(v)}
          </a>
        ))}
        <span class="current">{viewLabel(view)}</span>
      </nav>
      <div class="controls">
        <label>
          Metric{' '}
          <select
            id="metric"
            value={view.metric}
            onChange={(e) => go({ ...view, metric: (e.currentTarget as HTMLSelectElement).value as HeatmapView['metric'] })}
          >
            {METRICS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        {view.from === undefined && (
          <label>
            Window{' '}
            <select
              value={String(view.windowSeconds)}
              onChange={(e) => go({ ...view, windowSeconds: Number((e.currentTarget as HTMLSelectElement).value) })}
            >
              {WINDOWS.map((w) => (
                <option key={w.seconds} value={String(w.seconds)}>
                  last {w.label}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Brightness{' '}
          <input
            id="brightness"
            type="range"
            min={-2}
            max={2}
            step={0.25}
            value={brightness}
            onInput={(e) => setBrightness(Number((e.currentTarget as HTMLInputElement).value))}
          />
        </label>
        <label>
          Scale{' '}
          <select id="scale" value={mode} onChange={(e) => setMode((e.currentTarget as HTMLSelectElement).value as ScaleMode)}>
            <option value="linear">linear</option>
            <option value="log">log</option>
          </select>
        </label>
        <span class={view.to === undefined ? 'live on' : 'live'}>{view.to === undefined ? '● live' : 'fixed window'}</span>
      </div>
      {error !== undefined && <p class="error">{error}</p>}
      <div class="legend">
        <span class="ramp" style={{ background: rampGradient() }} />
        <span>
          0 … {heatmap === undefined ? '' : formatValue(scale.ceiling, heatmap.unit)} (colours relative to the 99th percentile in view)
        </span>
        {heatmap !== undefined && (
          <span class="muted">
            {heatmap.times.length} × {heatmap.buckets.length} buckets, {formatSeconds(heatmap.resolutionSeconds)} per column
            {heatmap.approximate && ', values approximate'}
          </span>
        )}
      </div>
      <div class="heatmap-row">
        <HierarchyAxis spans={heatmap?.hierarchy ?? []} buckets={grid.rows} height={HEIGHT} />
        <div class="canvas-column">
          <div class="canvas-wrap" ref={wrapRef} style={{ height: `${HEIGHT}px` }}>
            <canvas ref={canvasRef} class="heatmap" style={{ width: `${width}px`, height: `${HEIGHT}px` }} />
            <div
              class="overlay"
              onMouseMove={(e) => {
                const p = point(e);
                const canvas = canvasRef.current;
                const cell =
                  heatmap === undefined || canvas === null
                    ? undefined
                    : drawnCellAt(grid, canvas.width, canvas.height, heatmap.values, p.x, p.y);
                setHover(cell === undefined ? undefined : { cell, ...p });
                if (drag !== undefined) setDrag({ ...drag, x1: p.x, y1: p.y });
              }}
              onMouseDown={(e) => {
                const p = point(e);
                setDrag({ x0: p.x, y0: p.y, x1: p.x, y1: p.y });
              }}
              onMouseUp={() => {
                if (dragging && dragBlock !== undefined) zoomInto(dragBlock);
                setDrag(undefined);
              }}
              onMouseLeave={() => {
                setHover(undefined);
                setDrag(undefined);
              }}
            >
              {dragging && dragBlock !== undefined && <Box class="selection" rect={blockRect(grid, dragBlock)} />}
              {outline !== undefined && <Box class="outline" rect={blockRect(grid, outline)} />}
              {hover !== undefined && !dragging && (
                <Box
                  class="hover"
                  rect={blockRect(grid, {
                    column0: hover.cell.column,
                    column1: hover.cell.column,
                    row0: hover.cell.row,
                    row1: hover.cell.row,
                  })}
                />
              )}
            </div>
            {heatmap !== undefined && (heatmap.times.length === 0 || heatmap.buckets.length === 0) && (
              <p class="empty">Nothing recorded in this window yet.</p>
            )}
            {hover !== undefined && heatmap !== undefined && !dragging && (
              <Tooltip heatmap={heatmap} cell={hover.cell} x={Math.min(hover.x + 14, width - 300)} y={hover.y + 14} />
            )}
          </div>
          <div class="time-axis" style={{ width: `${width}px` }}>
            {heatmap !== undefined &&
              timeTicks(grid, Math.floor(width / 90)).map((t) => (
                <span key={t.column} style={{ left: `${t.x}px` }}>
                  {formatClock(heatmap.times[t.column]!)}
                </span>
              ))}
          </div>
          {diagnostic !== undefined && outline === undefined && <p class="muted">The selected diagnostic lies outside this view.</p>}
        </div>
        <DiagnosticsPanel
          diagnostics={diags?.diagnostics}
          error={diagError}
          selected={selected}
          onSelect={setSelected}
          adviceHref={formatRoute({ page: 'advice', project: ref.project, instance: ref.instance, table: ref.table })}
        />
      </div>
    </div>
  );
}

function Box(props: { readonly class: string; readonly rect: { x: number; y: number; w: number; h: number } }) {
  const r = props.rect;
  return <div class={props.class} style={{ left: `${r.x}px`, top: `${r.y}px`, width: `${r.w}px`, height: `${r.h}px` }} />;
}

function isWhole(v: HeatmapView): boolean {
  return v.from === undefined && v.to === undefined && v.start === undefined && v.end === undefined;
}

function wholeOf(v: HeatmapView): HeatmapView {
  return { metric: v.metric, windowSeconds: v.windowSeconds };
}

/** A breadcrumb label: the key range and the time window of a view. */
function viewLabel(v: HeatmapView): string {
  const keys =
    v.start === undefined && v.end === undefined
      ? 'all keys'
      : `${v.start === undefined ? '(start)' : base64ToPrintable(v.start)} … ${v.end === undefined ? '(end)' : base64ToPrintable(v.end)}`;
  const window = WINDOWS.find((w) => w.seconds === v.windowSeconds)?.label ?? formatSeconds(v.windowSeconds);
  const time = v.from === undefined ? `last ${window}` : `${formatClock(v.from)} – ${v.to === undefined ? 'now' : formatClock(v.to)}`;
  return `${keys}, ${time}`;
}
