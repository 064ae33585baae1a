export default function Home() {
  return (
    <section className="hero">
      <h1>Shelf</h1>
      <p>
        Sell software to accounts and deliver it to their devices, command-line clients, desktop apps and MCP clients.
      </p>
      <p>
        Start with the <a href="/docs/api">API reference</a>: every endpoint takes an account API key as{" "}
        <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
    </section>
  );
}
