import { useEffect, useRef, useState } from "react";

/**
 * A text field's local value that is committed `delay` ms after the last keystroke. When the
 * committed value changes from outside (filters cleared), the field follows it.
 */
export function useDebouncedText(
  value: string,
  commit: (text: string) => void,
  delay = 150,
): [string, (text: string) => void] {
  const [text, setText] = useState(value);
  const sent = useRef(value);
  const commitRef = useRef(commit);
  commitRef.current = commit;

  useEffect(() => {
    if (value !== sent.current) {
      sent.current = value;
      setText(value);
    }
  }, [value]);

  useEffect(() => {
    if (text === sent.current) {
      return;
    }
    const timer = setTimeout(() => {
      sent.current = text;
      commitRef.current(text);
    }, delay);
    return () => clearTimeout(timer);
  }, [text, delay]);

  return [text, setText];
}
