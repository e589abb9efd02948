//! Routing commands: classify a task, pick and recommend models, plan or swarm a task,
//! re-check an edited plan, rate models and past picks.

use switchyard_core::catalog::card::Category;
use switchyard_core::routing::plan::Plan;
use switchyard_core::routing::{
    AgentPreference, Classification, ClassifierSettings, FeedbackSummary, LearningSettings,
    PastPick, PickAnswer, PlanCheck, PlanTaskRequest, Recommendation, RouteTaskRequest,
};
use tauri::State;

use crate::{AppState, IpcError};

/// How a task reads: category, confidence, needs, stack words, hints and deciding words.
#[tauri::command]
#[specta::specta]
pub async fn classify_task(
    state: State<'_, AppState>,
    task: String,
) -> Result<Classification, IpcError> {
    Ok(state.require()?.classify_task(&task).await?)
}

/// The budget tiers the forms offer, cheapest first, with their bands in words.
#[tauri::command]
#[specta::specta]
pub fn budget_tiers() -> Vec<switchyard_core::routing::BudgetTierView> {
    switchyard_core::routing::budget_tiers()
}

/// The classifier fallback's settings: ask a model when the classifier is unsure.
#[tauri::command]
#[specta::specta]
pub async fn classifier_settings(
    state: State<'_, AppState>,
) -> Result<ClassifierSettings, IpcError> {
    Ok(state.require()?.classifier_settings().await?)
}

/// Saves the classifier fallback's settings; returns them as stored.
#[tauri::command]
#[specta::specta]
pub async fn set_classifier_settings(
    state: State<'_, AppState>,
    settings: ClassifierSettings,
) -> Result<ClassifierSettings, IpcError> {
    Ok(state.require()?.set_classifier_settings(settings).await?)
}

/// The best usable model for the task, recorded so it can be rated by its `pickId`.
#[tauri::command]
#[specta::specta]
pub async fn pick_model(
    state: State<'_, AppState>,
    request: RouteTaskRequest,
) -> Result<PickAnswer, IpcError> {
    Ok(state.require()?.pick_model(request).await?)
}

/// The best `count` (1–10) models for the task, one per provider first.
#[tauri::command]
#[specta::specta]
pub async fn recommend_models(
    state: State<'_, AppState>,
    request: RouteTaskRequest,
    count: u32,
) -> Result<Recommendation, IpcError> {
    Ok(state.require()?.recommend_models(request, count).await?)
}

/// The task as sequential steps or a swarm DAG, with a model per step; with the model
/// planner asked for, the first warning says which planner made it.
#[tauri::command]
#[specta::specta]
pub async fn plan_task(
    state: State<'_, AppState>,
    request: PlanTaskRequest,
) -> Result<Plan, IpcError> {
    Ok(state.require()?.plan_task(request).await?)
}

/// An edited plan with recomputed edges and waves, and its problems.
#[tauri::command]
#[specta::specta]
pub async fn revalidate_plan(
    state: State<'_, AppState>,
    plan: Plan,
) -> Result<PlanCheck, IpcError> {
    Ok(state.require()?.revalidate_plan(plan).await?)
}

/// Rates a model 1–5 in a category; returns its ratings there.
#[tauri::command]
#[specta::specta]
pub async fn rate_model(
    state: State<'_, AppState>,
    model_id: String,
    category: Category,
    rating: u8,
) -> Result<FeedbackSummary, IpcError> {
    Ok(state
        .require()?
        .rate_model(&model_id, category, rating)
        .await?)
}

/// Rates a past pick 1–5 (replacing an earlier rating of it); returns the pick.
#[tauri::command]
#[specta::specta]
pub async fn rate_pick(
    state: State<'_, AppState>,
    pick_id: u32,
    rating: u8,
) -> Result<PastPick, IpcError> {
    Ok(state.require()?.rate_pick(pick_id, rating).await?)
}

/// The newest picks, newest first, with their ratings.
#[tauri::command]
#[specta::specta]
pub async fn recent_picks(
    state: State<'_, AppState>,
    limit: u32,
) -> Result<Vec<PastPick>, IpcError> {
    Ok(state.require()?.recent_picks(limit).await?)
}

/// Settings → Routing: how many outcomes routing learns from, since when, and the cascade
/// skip threshold.
#[tauri::command]
#[specta::specta]
pub async fn learning_settings(state: State<'_, AppState>) -> Result<LearningSettings, IpcError> {
    Ok(state.require()?.learning_settings().await?)
}

/// Settings → Routing → "Forget what routing learned" (outcomes stay in the journal).
#[tauri::command]
#[specta::specta]
pub async fn reset_learning(state: State<'_, AppState>) -> Result<LearningSettings, IpcError> {
    Ok(state.require()?.reset_learning().await?)
}

/// Settings → Routing → the estimate below which a routed cascade skips a rung (0 = never).
#[tauri::command]
#[specta::specta]
pub async fn set_skip_below(
    state: State<'_, AppState>,
    value: f64,
) -> Result<LearningSettings, IpcError> {
    Ok(state.require()?.set_skip_below(value).await?)
}

/// Settings → Agents: each agent's own history and starting model.
#[tauri::command]
#[specta::specta]
pub async fn agent_preferences(
    state: State<'_, AppState>,
) -> Result<Vec<AgentPreference>, IpcError> {
    Ok(state.require()?.agent_preferences().await?)
}

/// Settings → Agents: sets (or with `null`, clears) the model an agent's runs start with.
#[tauri::command]
#[specta::specta]
pub async fn set_agent_start_model(
    state: State<'_, AppState>,
    agent: String,
    model: Option<String>,
) -> Result<Vec<AgentPreference>, IpcError> {
    Ok(state
        .require()?
        .set_agent_start_model(&agent, model.as_deref())
        .await?)
}
