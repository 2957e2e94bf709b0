export function TagList({ tags }: { tags: Record<string, string> }) {
  const entries = Object.entries(tags);
  if (entries.length === 0) return null;
  return (
    <ul className="tag-list" aria-label="Tags">
      {entries.map(([key, value]) => (
        <li key={key} className="tag">
          {key}: {value}
        </li>
      ))}
    </ul>
  );
}
