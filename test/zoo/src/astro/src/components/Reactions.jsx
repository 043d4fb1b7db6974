// An island: server-rendered with its text, hydrated in the browser to the same text.
import { useState } from 'preact/hooks';
export default function Reactions({ title }) {
  const [count, setCount] = useState(0);
  return <aside><p>Reactions to {title}: {count}</p><button onClick={() => setCount(count + 1)}>Like</button></aside>;
}
