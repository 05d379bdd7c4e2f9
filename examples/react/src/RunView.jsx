import { stepRows, stopReasons } from '../../shared/run.js';

function Tool({ tool }) {
  return (
    <li className={`tool ${tool.status}`} data-testid="tool">
      <span className="name">{tool.name ?? 'tool'}</span> <span className="status">{tool.status}</span>
      {tool.error ? <span className="error"> — {tool.error}</span> : null}
    </li>
  );
}

function Step({ row }) {
  if (row.missing) {
    return (
      <li className="step missing" data-testid="missing-step" data-step={row.number}>
        step {row.number} — missing, catching up…
      </li>
    );
  }
  const { step } = row;
  return (
    <li className={`step ${step.type ?? ''}`} data-testid="step" data-step={step.number}>
      <div className="head">
        step {step.number} <span className="muted">{step.type ?? 'running'}{step.finish_reason ? ` · ${step.finish_reason}` : ''}</span>
      </div>
      {step.tools.length > 0 ? <ul className="tools">{step.tools.map((tool, i) => <Tool key={i} tool={tool} />)}</ul> : null}
      {step.text ? <p className="step-text">{step.text}</p> : null}
    </li>
  );
}

export function RunView({ sessionId, run }) {
  const execution = run.view.executions.at(-1);
  return (
    <main>
      <header>
        <h1>Agent run <code>{sessionId}</code></h1>
        <p className="bar">
          <span className={`connection ${run.connection}`}>connection <b data-testid="connection">{run.connection}</b></span>
          {run.catchingUp ? <span data-testid="catching-up" className="catching-up">catching up…</span> : null}
          <span className="run-status">run <b data-testid="run-status">{execution?.status ?? 'waiting'}</b></span>
        </p>
        {execution ? (
          <dl data-testid="stop-reason" className="stop">
            {stopReasons(execution).map(([label, value]) => (
              <div key={label}><dt>{label}</dt><dd>{value}</dd></div>
            ))}
          </dl>
        ) : null}
      </header>
      {execution ? (
        <div className="columns">
          <ol className="steps" data-testid="steps">
            {stepRows(execution).map((row) => <Step key={row.number} row={row} />)}
          </ol>
          <section className="text">
            <h2>Streamed text</h2>
            <pre data-testid="text">{execution.text}</pre>
          </section>
        </div>
      ) : null}
    </main>
  );
}
