// Inline SVG icons (no icon font, no remote assets: the CSP allows none).
import type { PageId } from "../nav";

const PATHS: Record<PageId | "logo", string> = {
  logo: "M12 21v-7M12 14C12 10 7 9 7 3M12 14c0-4 5-5 5-11",
  models: "M4 19V9m6 10V5m6 14v-7m4 7H2",
  route: "M6 3v6a6 6 0 0 0 6 6h6m0 0-3-3m3 3-3 3M6 21a2 2 0 1 0 0-4 2 2 0 0 0 0 4Z",
  roles: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8Zm-7 9a7 7 0 0 1 14 0",
  runs: "M5 4l14 8-14 8V4Z",
  review: "M9 12l2 2 4-4M4 4h16v16H4z",
  keys: "M15 7a4 4 0 1 1-3.46 6H9l-2 2-2-2 2-2h4.54A4 4 0 0 1 15 7Z",
  settings:
    "M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6Zm7.4-3a7.4 7.4 0 0 0-.1-1.2l2-1.6-2-3.4-2.4 1a7 7 0 0 0-2-1.2L14.5 3h-5l-.4 2.6a7 7 0 0 0-2 1.2l-2.4-1-2 3.4 2 1.6a7.4 7.4 0 0 0 0 2.4l-2 1.6 2 3.4 2.4-1a7 7 0 0 0 2 1.2l.4 2.6h5l.4-2.6a7 7 0 0 0 2-1.2l2.4 1 2-3.4-2-1.6c.1-.4.1-.8.1-1.2Z",
};

export function Icon({ name }: { name: PageId | "logo" }) {
  return (
    <svg
      className="icon"
      viewBox="0 0 24 24"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
