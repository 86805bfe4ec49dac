import { useState } from 'preact/hooks';
import type { InstanceJson, ProjectJson } from '../api.js';
import { Section } from '../components/status.js';
import { useJson } from '../components/use-json.js';
import { formatRoute } from '../routes.js';

/** The Node client's default project when none is configured (the literal string). */
const NODE_CLIENT_DEFAULT_PROJECT = '{{projectId}}';

/**
 * The first page: projects and their instances (GET /api/v1/projects). A
 * server without that list (404) gets a form instead: a project's instances
 * by name.
 */
export function ProjectsPage() {
  const projects = useJson<{ projects: readonly ProjectJson[] }>('/api/v1/projects');
  const [project, setProject] = useState('');
  const named = useJson<{ instances: readonly InstanceJson[] }>(
    project === '' ? undefined : `/api/v1/projects/${encodeURIComponent(project)}/instances`,
  );
  const listed = projects.error === undefined || !('status' in projects.error) || projects.error.status !== 404;
  return (
    <div>
      <h1>Projects and instances</h1>
      {listed ? (
        <Section state={projects}>
          {(d) =>
            d.projects.length === 0 ? (
              <p class="muted">No instances yet: create one, or a table (CreateTable creates its instance).</p>
            ) : (
              d.projects.map((p) => (
                <div key={p.projectId}>
                  <h2>{p.projectId}</h2>
                  <InstanceList instances={p.instances ?? []} />
                </div>
              ))
            )
          }
        </Section>
      ) : (
        <p class="muted">This server does not list its projects: name one to see its instances.</p>
      )}
      <form
        class="lookup"
        onSubmit={(e) => {
          e.preventDefault();
          const input = (e.currentTarget as HTMLFormElement).elements.namedItem('project') as HTMLInputElement;
          setProject(input.value.trim() || NODE_CLIENT_DEFAULT_PROJECT);
        }}
      >
        <label>
          Project <input name="project" placeholder={NODE_CLIENT_DEFAULT_PROJECT} />
        </label>{' '}
        <button type="submit">List instances</button>
      </form>
      {project !== '' && (
        <Section title={project} state={named}>
          {(d) => <InstanceList instances={d.instances} />}
        </Section>
      )}
    </div>
  );
}

function InstanceList(props: { readonly instances: readonly InstanceJson[] }) {
  if (props.instances.length === 0) return <p class="muted">No instances.</p>;
  return (
    <ul class="cards">
      {props.instances.map((i) => (
        <li key={i.name}>
          <a href={formatRoute({ page: 'instance', project: i.project, instance: i.instanceId })}>{i.instanceId}</a>
          {i.displayName !== undefined && i.displayName !== i.instanceId && <span class="muted"> {i.displayName}</span>}
        </li>
      ))}
    </ul>
  );
}
