/** Shown instead of the app when the engine could not start (data dir, database). */
export function StartupError(props: { code: string; message: string }) {
  return (
    <div className="startup-error" id="startup-error" role="alert">
      <h1>Switchyard could not start</h1>
      <p className="muted">
        The data directory or the database could not be opened. Nothing was changed or deleted.
      </p>
      <pre className="error-detail" id="startup-error-message">
        {props.message}
      </pre>
      <p className="muted">
        Fix the cause above (free disk space, permissions, or move the damaged file away), or set{" "}
        <code>SWITCHYARD_HOME</code> to another directory, then start Switchyard again.
      </p>
      <p className="muted small">code: {props.code}</p>
    </div>
  );
}
