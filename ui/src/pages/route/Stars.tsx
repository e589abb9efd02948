import { useState } from "react";

interface Props {
  /** The current rating (1–5), or null when unrated. */
  value: number | null;
  onRate: (rating: number) => void;
  disabled?: boolean;
  /** What is being rated, for screen readers. */
  label: string;
}

/** Five clickable stars; hovering previews the rating. */
export function Stars({ value, onRate, disabled = false, label }: Props) {
  const [hover, setHover] = useState<number | null>(null);
  const shown = hover ?? value ?? 0;
  return (
    <fieldset
      className="stars"
      aria-label={label}
      data-rating={value ?? ""}
      onMouseLeave={() => setHover(null)}
    >
      {[1, 2, 3, 4, 5].map((n) => (
        <button
          key={n}
          type="button"
          className={n <= shown ? "star on" : "star"}
          aria-label={`${n} star${n === 1 ? "" : "s"}`}
          aria-pressed={value === n}
          disabled={disabled}
          onMouseEnter={() => setHover(n)}
          onClick={() => onRate(n)}
        >
          ★
        </button>
      ))}
    </fieldset>
  );
}
