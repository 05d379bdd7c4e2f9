// `stepline/devtools-overlay/vue`: the in-page devtools overlay as a Vue component.
import type { DefineComponent } from 'vue';
import type { AgentSession } from './echo.js';

/**
 * The overlay; its code loads when it mounts. Render it only in development.
 * @example
 * <SteplineDevtools v-if="dev" dock="right" final-state="/agents/{session}/state" />
 */
export const SteplineDevtools: DefineComponent<{
  sessions?: AgentSession[];
  dock?: 'bottom' | 'right';
  open?: boolean;
  finalState?: string;
}>;
