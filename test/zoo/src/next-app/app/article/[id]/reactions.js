'use client';
// A client component: server-rendered, hydrated to the same text.
import { useState } from 'react';
export default function Reactions({ title }) {
  const [count, setCount] = useState(0);
  return <aside><p>Reactions to {title}: {count}</p><button onClick={() => setCount(count + 1)}>Like</button></aside>;
}
