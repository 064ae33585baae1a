/** A color's sample: an SVG fill (the pages' CSP allows no inline style), outlined so white shows on white. */
export function Swatch({ color, size = 14 }: { color: string; size?: number }) {
  return (
    <svg className="swatch" width={size} height={size} viewBox="0 0 14 14" aria-hidden="true" focusable="false">
      <rect x="0.5" y="0.5" width="13" height="13" rx="3" fill={color} stroke="currentColor" strokeOpacity="0.35" />
    </svg>
  );
}
